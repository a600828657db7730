#!/usr/bin/env bash
# Throw-away TLS material for a local or test broker with client authentication, written into DIR
# (created; nothing here is ever committed):
#
#   ca.pem                  the CA that signed both certificates below (what clients trust)
#   broker.p12              PKCS12 keystore: the broker's key and certificate (SAN IP:127.0.0.1
#                           and DNS:localhost) with the CA; password in store-password
#   truststore.p12          PKCS12 truststore holding the CA (the broker trusts clients it signed)
#   client.pem, client.key  a client certificate (CN=mailbridge) and its unencrypted PKCS8 key
#   client.enc.key          the same key encrypted with the passphrase in client-key-passphrase
#
# Usage: certs.sh DIR. Needs openssl and keytool (Java). Certificates are valid for two days.
set -euo pipefail

dir="${1:?usage: certs.sh DIR}"
mkdir -p "$dir"
cd "$dir"
umask 077

# Random, so that nothing guessable protects even a test key.
openssl rand -hex 16 >store-password
openssl rand -hex 16 >client-key-passphrase
store_password="$(cat store-password)"

ec_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
serial() { echo "0x$(openssl rand -hex 8)"; }

ec_key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj "/CN=mailbridge test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

# sign NAME SUBJECT EXTENSIONS: NAME.key, NAME.pem signed by the CA.
sign() {
  ec_key "$1.key"
  openssl req -new -key "$1.key" -subj "$2" -out "$1.csr"
  printf '%b' "$3" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -set_serial "$(serial)" -days 2 \
    -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

sign broker "/CN=localhost" \
  "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n"
sign client "/CN=mailbridge" "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n"

openssl pkcs8 -topk8 -in client.key -out client.pk8 -nocrypt && mv client.pk8 client.key
openssl pkcs8 -topk8 -in client.key -out client.enc.key -v2 aes-256-cbc \
  -passout "file:client-key-passphrase"

openssl pkcs12 -export -in broker.pem -inkey broker.key -certfile ca.pem -name broker \
  -out broker.p12 -passout "pass:$store_password"
keytool -importcert -noprompt -alias ca -file ca.pem -keystore truststore.p12 -storetype PKCS12 \
  -storepass "$store_password" >/dev/null 2>&1
rm -f broker.key ca.key
