#!/usr/bin/env bash
# Serves a directory with nginx on 127.0.0.1 for the Range and resume tests: a real static file
# host, unlike python's http.server, which ignores Range.
#
#   scripts/nginx-test-host.sh ROOT     prints "PORT <n>" once nginx listens, then runs nginx in the
#                                       foreground until it gets SIGTERM or SIGINT.
#
# nginx comes from scripts/install-deps (which scripts/test runs first); this script never installs
# anything: several tests start it at once, and parallel apt-get runs fail on the dpkg lock. When
# nginx is missing it says so and fails. Everything else lives in a temporary directory removed on
# exit.
set -euo pipefail
root=$(cd "${1:?usage: nginx-test-host.sh ROOT}" && pwd)

nginx_bin=$(command -v nginx || true)
[ -z "$nginx_bin" ] && [ -x /usr/sbin/nginx ] && nginx_bin=/usr/sbin/nginx
if [ -z "$nginx_bin" ]; then
  echo "nginx-test-host: nginx is not installed; run scripts/install-deps (scripts/test does)" >&2
  exit 1
fi

work=$(mktemp -d /tmp/nginx-test-host.XXXXXX)
pid=
watcher=
# Clean-up ignores further signals and failures: either would end the trap before the rm. The
# parent watcher goes too: left behind, it would signal this script's pid, by then perhaps another
# process's, when the test process ends.
cleanup() {
  trap "" TERM INT
  [ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  [ -z "$pid" ] || wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 0' TERM INT

# A free port is only free until someone binds it: another test's server can take it between this
# choice and nginx's bind. nginx writes its pid file only once its listening socket is bound, and
# exits when the bind fails; so wait for one or the other, and choose another port after a failure.
for attempt in 1 2 3 4 5; do
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  rm -f "$work/nginx.pid"
  cat > "$work/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 64; }
http {
  access_log $work/access.log;
  client_body_temp_path $work/body;
  proxy_temp_path $work/proxy;
  fastcgi_temp_path $work/fastcgi;
  uwsgi_temp_path $work/uwsgi;
  scgi_temp_path $work/scgi;
  types { image/jpeg jpg jpeg; image/png png; image/webp webp; image/gif gif; }
  default_type application/octet-stream;
  server { listen 127.0.0.1:$port; root $root; }
}
CONF
  "$nginx_bin" -p "$work" -c "$work/nginx.conf" &
  pid=$!
  for _ in $(seq 600); do
    [ -s "$work/nginx.pid" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$work/nginx.pid" ] && kill -0 "$pid" 2>/dev/null && break
  wait "$pid" 2>/dev/null || true
  pid=
  echo "nginx-test-host: nginx did not start on port $port (attempt $attempt): $(tail -n 1 "$work/error.log" 2>/dev/null)" >&2
done
[ -n "$pid" ] || exit 1

# With NGINX_TEST_HOST_WATCH_PARENT=1, stop when the parent (a test process) dies.
if [ "${NGINX_TEST_HOST_WATCH_PARENT:-0}" = 1 ]; then
  parent=$PPID
  (while kill -0 "$parent" 2>/dev/null; do sleep 0.5; done; kill -TERM $$) &
  watcher=$!
fi
echo "PORT $port"
wait "$pid"
