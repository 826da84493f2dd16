#!/bin/sh
# Self-test of the interop scripts without pat: ts-client.mjs (privacypass-ts
# as client) against ts-peer.mjs (privacypass-ts as issuer + origin) over
# HTTPS on loopback with the test CA, and once over plain HTTP. Run from anywhere: sh interop/selftest.sh
# (after `npm ci` in interop/). Exit status 0 iff every run passed.
set -eu
cd "$(dirname "$0")"
export NODE_EXTRA_CA_CERTS="$PWD/certs/ca.pem"
tmp=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# start_peer NAME ARGS...: starts ts-peer on a free port, waits for
# `listening <port>`, sets $port.
start_peer() {
    name=$1
    shift
    node ts-peer.mjs --port 0 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    pids="$pids $!"
    i=0
    until grep -q '^listening ' "$tmp/$name.out" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 600 ]; then
            echo "selftest: ts-peer $name did not start:" >&2
            cat "$tmp/$name.err" >&2
            exit 1
        fi
        sleep 0.1
    done
    port=$(sed -n 's/^listening //p' "$tmp/$name.out")
}

status=0
start_peer t1 --tls --token-type 1
p1=$port
start_peer t2 --tls --token-type 2 --context empty --origin-info "localhost:$p1,example.com"
p2=$port
start_peer both --tls --token-type 1,2
pb=$port
start_peer plain --token-type 1,2
pp=$port

echo "== single: type 1, type 2 (empty redemption_context, origin_info), both on one issuer"
node ts-client.mjs "https://localhost:$p1/protected" "https://localhost:$p2/protected" \
    "https://localhost:$pb/protected/1" "https://localhost:$pb/protected/2" || status=1
echo "== generic batch: type 1 + type 2 on one issuer"
node ts-client.mjs --batch "https://localhost:$pb/protected/1" "https://localhost:$pb/protected/2" \
    "localhost:$pb" || status=1

echo "== plain HTTP peer (as pat fetch sees it), issuance via --issuer-url"
node ts-client.mjs --issuer-url "http://127.0.0.1:$pp" "http://127.0.0.1:$pp/protected/1" \
    "http://127.0.0.1:$pp/protected/2" || status=1

if [ "${SELFTEST_VERBOSE:-0}" != 0 ] || [ $status != 0 ]; then
    for n in t1 t2 both plain; do
        echo "== ts-peer $n log"
        cat "$tmp/$n.err"
    done
fi
exit $status
