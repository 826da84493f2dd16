#!/bin/sh
# TEST-ONLY certificates for the interop tests on loopback. The private keys
# are committed on purpose; never trust ca.pem outside these tests.
#
# Writes, next to this script:
#   ca.pem             test CA (EC P-256, CA:TRUE, keyCertSign/cRLSign)
#   localhost.pem      leaf for DNS:localhost and IP:127.0.0.1 (CA:FALSE,
#                      digitalSignature, serverAuth), signed by the CA
#   localhost-key.pem  the leaf's private key, PKCS#8 PEM
# The CA's own key is not kept: nothing needs to sign with it again.
# Validity: 100 years, 2020-01-01 to 2120-01-01, fixed dates (not "now") so a
# machine whose clock is behind or ahead still accepts them. `openssl ca` is
# used because it takes explicit start dates on OpenSSL 1.1.1 and 3.x alike.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/ca.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
x509_extensions = v3_ca
[dn]
CN = pat interop TEST CA (do not trust)
[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
CNF

cat >"$tmp/leaf.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = localhost
[v3_leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
CNF

mkdir "$tmp/db"
: >"$tmp/db/index.txt"
echo 01 >"$tmp/db/serial"
cat >"$tmp/sign.cnf" <<CNF
[ca]
default_ca = testca
[testca]
database = $tmp/db/index.txt
serial = $tmp/db/serial
new_certs_dir = $tmp/db
default_md = sha256
policy = any
unique_subject = no
email_in_dn = no
copy_extensions = none
[any]
commonName = supplied
CNF
dates="-startdate 20200101000000Z -enddate 21200101000000Z"

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$tmp/ca-key.pem"
openssl req -new -config "$tmp/ca.cnf" -key "$tmp/ca-key.pem" -out "$tmp/ca.csr"
# shellcheck disable=SC2086
openssl ca -batch -notext -config "$tmp/sign.cnf" -selfsign -keyfile "$tmp/ca-key.pem" \
  $dates -extfile "$tmp/ca.cnf" -extensions v3_ca -in "$tmp/ca.csr" -out ca.pem

# genpkey writes PKCS#8 ("BEGIN PRIVATE KEY").
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out localhost-key.pem
openssl req -new -config "$tmp/leaf.cnf" -key localhost-key.pem -out "$tmp/leaf.csr"
# shellcheck disable=SC2086
openssl ca -batch -notext -config "$tmp/sign.cnf" -cert ca.pem -keyfile "$tmp/ca-key.pem" \
  $dates -extfile "$tmp/leaf.cnf" -extensions v3_leaf -in "$tmp/leaf.csr" -out localhost.pem

openssl verify -CAfile ca.pem localhost.pem
