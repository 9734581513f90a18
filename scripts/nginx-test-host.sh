#!/usr/bin/env bash
# Serves a directory with nginx on 127.0.0.1 for the Range and resume tests: a real static file
# host, unlike python's http.server, which ignores Range.
#
#   scripts/nginx-test-host.sh ROOT     prints "PORT <n>" once configured, then runs nginx in the
#                                       foreground until it gets SIGTERM or SIGINT.
#
# Installs nginx-light with apt-get when nginx is missing (the tests run as root); the package's
# own service is kept from starting. Everything else lives in a temporary directory removed on exit.
set -euo pipefail
root=$(cd "${1:?usage: nginx-test-host.sh ROOT}" && pwd)

nginx_bin=$(command -v nginx || true)
[ -z "$nginx_bin" ] && [ -x /usr/sbin/nginx ] && nginx_bin=/usr/sbin/nginx
if [ -z "$nginx_bin" ]; then
  echo "nginx-test-host: installing nginx-light with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  policy=/usr/sbin/policy-rc.d
  [ -e "$policy" ] || { printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod +x "$policy"; trap 'rm -f "$policy"' EXIT; }
  apt-get install -y -qq nginx-light >&2 || { apt-get update -qq >&2 && apt-get install -y -qq nginx-light >&2; }
  rm -f "$policy"; trap - EXIT
  nginx_bin=/usr/sbin/nginx
fi

work=$(mktemp -d /tmp/nginx-test-host.XXXXXX)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
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
  types { image/jpeg jpg jpeg; image/png png; }
  default_type application/octet-stream;
  server { listen 127.0.0.1:$port; root $root; }
}
CONF

"$nginx_bin" -p "$work" -c "$work/nginx.conf" &
pid=$!
# Clean-up ignores further signals and failures: either would end the trap before the rm.
trap 'trap "" TERM INT; kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
trap 'exit 0' TERM INT
# With NGINX_TEST_HOST_WATCH_PARENT=1, stop when the parent (a test process) dies.
if [ "${NGINX_TEST_HOST_WATCH_PARENT:-0}" = 1 ]; then
  parent=$PPID
  (while kill -0 "$parent" 2>/dev/null; do sleep 0.5; done; kill -TERM $$) &
fi
echo "PORT $port"
wait "$pid"
