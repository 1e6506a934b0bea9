# Sourced by bench/beam.sh and bench/beam-scale.sh: the out-of-process Beam
# cluster they measure on. Needs $tmp (holding the built prism and boot)
# and the array pids (the caller's cleanup kills each process group).

# start_cluster starts a prism job server and a Go SDK worker pool (port
# 50000), each in its own process group, and waits until both listen; it
# sets port to the job server's port.
start_cluster() {
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  setsid "$tmp/prism" --job_port "$port" --serve_http=false --log_level warn > "$tmp/prism.log" 2>&1 &
  pids+=($!)
  # In the temporary folder: the pool writes pipeline_options.json where it runs.
  (cd "$tmp" && exec setsid "$tmp/boot" --worker_pool > "$tmp/pool.log" 2>&1) &
  pids+=($!)
  local p
  for p in "$port" 50000; do
    for _ in $(seq 1 100); do
      (echo > /dev/tcp/127.0.0.1/"$p") 2>/dev/null && break
      sleep 0.1
    done
  done
}
