# Sourced by the benchmarks whose figures depend on the processor (issue 43:
# "whoever runs on a processor model that bench/results does not have yet
# adds that model's figures"). Their results file keeps one section per
# processor model: a run replaces its own model's section and keeps the
# others, so that one file shows the AMD EPYC's and the Intel Xeon's figures
# side by side, each with its machine line.

# cpu_model prints the processor's model name, as /proc/cpuinfo gives it,
# with its family and model numbers (KVM guests often show a generic name).
cpu_model() {
  local name fam mod
  name=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
  fam=$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
  mod=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
  echo "$name (family $fam, model $mod)"
}

# permodel_write FILE HEAD BODY [TAIL]: writes FILE as HEAD, then this
# processor's section (a "## MODEL" heading and BODY), then the sections of
# the other models that FILE already holds, then TAIL. A section runs from
# "<!-- cpu: MODEL -->" to "<!-- end cpu -->". The file is replaced whole
# (written beside it, then renamed).
permodel_write() {
  local file=$1 head=$2 body=$3 tail=${4:-} model
  model=$(cpu_model)
  {
    cat "$head"
    echo
    echo "<!-- cpu: $model -->"
    echo "## $model"
    echo
    cat "$body"
    echo "<!-- end cpu -->"
    if [ -f "$file" ]; then
      awk -v m="<!-- cpu: $model -->" '
        /^<!-- cpu: .* -->$/ { on = ($0 != m); if (on) print ""; }
        on { print }
        /^<!-- end cpu -->$/ { on = 0 }' "$file"
    fi
    if [ -n "$tail" ]; then echo; cat "$tail"; fi
  } > "$file.tmp"
  mv "$file.tmp" "$file"
}
