# Shared by scripts/fuzz and scripts/fuzz-ci (sourced, from the repository's root): how the fuzz
# package (fuzz/) is built with libFuzzer and the sanitizers, and how a target runs.
#
# Sanitizers. `address` (the default): Swift and C under AddressSanitizer with LeakSanitizer, the C
# code (every C target: the engines, the adapters, the front ends) also under
# UndefinedBehaviorSanitizer, every check of `-fsanitize=undefined` fatal. `thread`: Swift and C
# under ThreadSanitizer, the C code under UndefinedBehaviorSanitizer too (for FuzzJPEGEngine's
# two-thread split). What cannot be had here, and why:
#   - UBSan on Swift code: swiftc has no such sanitizer (`-sanitize=undefined` is refused); Swift's
#     own checks (overflow, bounds, force-unwraps) trap in this -Onone build instead.
#   - UBSan through SwiftPM's `--sanitize=undefined`: refused by Swift 6.3 on Linux; `-Xcc` reaches
#     every C target, and the ASan and TSan runtimes carry UBSan's handlers, so the link needs nothing.
#   - Debian's libpng, libjpeg-turbo and zlib are not instrumented (scripts/fuzz --instrumented-libs
#     builds instrumented libpng and libjpeg-turbo; not used for the oracles' campaigns).
# The C code is built at -O1 (libFuzzer's usual level): at -O0, clang instrumenting
# imc_png_fast.c's forced-inline filter kernels grew to 24 GB with ASan and UBSan (killed by the
# kernel; with ASan alone it passed 4 GB), where -O1 takes 0.3 GB and keeps every check.

fuzz_scratch() { # mode
  case "$1" in
    address) echo "$PWD/fuzz/.build" ;;
    thread) echo "$PWD/fuzz/.build-thread" ;;
    libs) echo "$PWD/fuzz/.build-libs" ;;
    coverage) echo "$PWD/fuzz/.build-coverage" ;;
  esac
}

# Builds the fuzz package's products (all, or the ones named) once. Output in $log.
fuzz_build() { # mode log [product...]
  local mode=$1 log=$2 scratch sanitizer products=() p
  shift 2
  scratch=$(fuzz_scratch "$mode")
  sanitizer=address
  [ "$mode" = thread ] && sanitizer=thread
  for p in "$@"; do products+=(--product "$p"); done
  [ $# -ne 1 ] && products=() # several products: build them all in one go
  local flags=(--scratch-path "$scratch" --sanitize=fuzzer -Xswiftc "-sanitize=fuzzer,$sanitizer"
    -Xcc "-fsanitize=$sanitizer" -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined -Xcc -O1)
  # Coverage: no sanitizer, the C code at -O0 with clang's source-based coverage (replays only).
  # (-profile-generate to swiftc links the profile runtime that writes the counts at exit.)
  [ "$mode" = coverage ] && flags=(--scratch-path "$scratch" --sanitize=fuzzer -Xswiftc -profile-generate
    -Xcc -fprofile-instr-generate -Xcc -fcoverage-mapping)
  (cd fuzz && swift build "${flags[@]}" "${products[@]}") >"$log" 2>&1 && return 0
  # A scratch build kept across pulls can hold a stale plan (a source file or module of the main
  # package added or removed): drop the plan and build once more.
  grep -qE "missing inputs|no such module|module map file .* not found" "$log" || return 1
  rm -f "$scratch/debug.yaml" "$scratch/build.db" "$scratch"/*/debug/description.json
  (cd fuzz && swift build "${flags[@]}" "${products[@]}") >"$log" 2>&1
}

# The sanitizers' options for a run (exported).
fuzz_environment() { # mode
  export SWIFT_BACKTRACE=enable=no
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  if [ "$1" = thread ]; then
    export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
  else
    # A 64 MiB quarantine: the default 256 MiB of freed coefficient buffers looked like a leak to
    # the RSS limit (fuzz/README.md, 2026-12-01).
    export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=64
    export LSAN_OPTIONS=suppressions="$PWD/fuzz/lsan.supp"
  fi
}

# The libFuzzer options every run takes.
fuzz_limits() { # mode malloc-limit-mb timeout max-len
  local rss=$(($2 * 4))
  [ "$1" = thread ] && rss=$(($2 * 8)) # ThreadSanitizer's shadow and history count in the RSS
  echo "-malloc_limit_mb=$2 -rss_limit_mb=$rss -timeout=$3 -max_len=$4"
}

# Reads a run's log: "executions coverage features corpus-units corpus-bytes peak-rss-mb".
fuzz_numbers() { # log
  local log=$1 executions cov ft units size rss done_line
  executions=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | awk '{n += $NF} END {if (NR) print n}')
  [ -n "$executions" ] || executions=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  done_line=$(grep -E '^#[0-9]+.*(DONE|INITED|pulse|NEW|REDUCE).*cov:' "$log" | tail -1)
  cov=$(echo "$done_line" | grep -Eo 'cov: [0-9]+' | grep -Eo '[0-9]+')
  ft=$(echo "$done_line" | grep -Eo 'ft: [0-9]+' | grep -Eo '[0-9]+')
  units=$(echo "$done_line" | grep -Eo 'corp: [0-9]+' | grep -Eo '[0-9]+')
  size=$(echo "$done_line" | grep -Eo 'corp: [0-9]+/[0-9]+[a-zA-Z]*' | cut -d/ -f2)
  rss=$(grep -Eo 'stat::peak_rss_mb: *[0-9]+' "$log" | awk '{print $NF}' | sort -n | tail -1)
  echo "${executions:-?} ${cov:-?} ${ft:-?} ${units:-?} ${size:-?} ${rss:-?}"
}
