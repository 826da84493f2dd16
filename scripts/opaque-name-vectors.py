#!/usr/bin/env python3
"""Writes tests/vectors/opaque-names/: challenges whose names are not the
printable ASCII this library writes (UTF-8 issuer and origin names, empty
origin-list items, a one-byte issuer, bytes that are not UTF-8), which pat-go,
the `privacypass` crate and privacypass-ts accept, in pat-go's vector schemas.

Computed here with Python's hashlib and integers only, independently of the
library: the token_input of RFC 9577 §2.2 for every token type (token schema),
and a complete type-0x0002 issuance (RFC 9578 §6, RFC 9474
RSABSSA-SHA384-PSS-Deterministic) with pat-go's case-0 key, nonce, salt and
blind. The VOPRF types are written by the fuzz crate with voprf-ng
(`fuzz/src/opaque_names.rs`). Deterministic: re-running gives the same files."""
import base64
import hashlib
import json
import pathlib
import struct

root = pathlib.Path(__file__).resolve().parent.parent
vec = root / "tests" / "vectors" / "pat-go" / "tokens"
out_dir = root / "tests" / "vectors" / "opaque-names"

# (issuer_name, redemption_context, origin_info): each is accepted by the
# other implementations; all but the one-byte issuer (the shortest name the
# format allows) are outside the name syntax of TokenChallenge::new.
NAMES = [
    ("issuer.bücher.example".encode(), bytes(range(32)), b"origin.example"),
    (b"issuer.example", b"", "origin.bücher.example,xn--bcher-kva.example".encode()),
    (b"issuer.example", bytes(32), b",origin.example,,other.example,"),
    (b"i", bytes(range(100, 132)), b""),
    (b"\xffissuer\x00", b"", b"\x01"),
]


def challenge(token_type, issuer, ctx, origin):
    return (struct.pack(">H", token_type) + struct.pack(">H", len(issuer)) + issuer
            + bytes([len(ctx)]) + ctx + struct.pack(">H", len(origin)) + origin)


def nonce(i, token_type):
    return hashlib.sha256(b"opaque-names nonce %d %d" % (i, token_type)).digest()


# --- token_input for every token type -----------------------------------------
token_cases = []
for token_type in [0x0001, 0x0002, 0x0003, 0x0005]:
    for i, (issuer, ctx, origin) in enumerate(NAMES):
        n = nonce(i, token_type)
        key_id = hashlib.sha256(b"opaque-names key %d" % token_type).digest()
        digest = hashlib.sha256(challenge(token_type, issuer, ctx, origin)).digest()
        token_cases.append({
            "comment": f"// token_type({token_type:04x}), issuer_name({issuer!r}), origin_info({origin!r})",
            "token_type": f"{token_type:04x}",
            "issuer_name": issuer.hex(),
            "redemption_context": ctx.hex(),
            "origin_info": origin.hex(),
            "nonce": n.hex(),
            "token_key_id": key_id.hex(),
            "token_authenticator_input": (struct.pack(">H", token_type) + n + digest + key_id).hex(),
        })


# --- type 0x0002 issuance -----------------------------------------------------
def der(data, pos=0):
    """One DER TLV at `pos`: (tag, content, end)."""
    tag, first = data[pos], data[pos + 1]
    pos += 2
    if first < 0x80:
        length = first
    else:
        k = first & 0x7f
        length = int.from_bytes(data[pos:pos + k], "big")
        pos += k
    return tag, data[pos:pos + length], pos + length


def sequence(content):
    items, pos = [], 0
    while pos < len(content):
        tag, value, pos = der(content, pos)
        items.append((tag, value))
    return items


def rsa_private_key(pem):
    body = b"".join(line for line in pem.splitlines() if not line.startswith(b"-----"))
    _, info, _ = der(base64.b64decode(body))
    private_key = sequence(info)[2][1]  # version, algorithm, OCTET STRING
    _, rsa, _ = der(private_key)
    ints = [int.from_bytes(v, "big") for _, v in sequence(rsa)]
    return ints[1], ints[2], ints[3]  # n, e, d


def mgf1_sha384(seed, length):
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.sha384(seed + struct.pack(">I", counter)).digest()
        counter += 1
    return out[:length]


def emsa_pss_encode(msg, salt, em_bits):
    """RFC 8017 §9.1.1 with SHA-384, MGF1-SHA-384 and sLen = 48."""
    h_len, em_len = 48, (em_bits + 7) // 8
    m_hash = hashlib.sha384(msg).digest()
    h = hashlib.sha384(bytes(8) + m_hash + salt).digest()
    db = bytes(em_len - len(salt) - h_len - 2) + b"\x01" + salt
    masked = bytes(a ^ b for a, b in zip(db, mgf1_sha384(h, em_len - h_len - 1)))
    masked = bytes([masked[0] & (0xff >> (8 * em_len - em_bits))]) + masked[1:]
    return masked + h + b"\xbc"


base = json.load(open(vec / "type2" / "type2-issuance-test-vectors.json"))[0]
pem = bytes.fromhex(base["skS"])
spki = bytes.fromhex(base["pkS"])
salt = bytes.fromhex(base["salt"])
r = int.from_bytes(bytes.fromhex(base["blind"]), "big")
n, e, d = rsa_private_key(pem)
mod_bytes = (n.bit_length() + 7) // 8
key_id = hashlib.sha256(spki).digest()


def issue_type2(ch, nn):
    token_input = struct.pack(">H", 2) + nn + hashlib.sha256(ch).digest() + key_id
    m = int.from_bytes(emsa_pss_encode(token_input, salt, n.bit_length() - 1), "big")
    blinded = m * pow(r, e, n) % n
    blind_sig = pow(blinded, d, n)
    sig = blind_sig * pow(r, -1, n) % n
    assert pow(sig, e, n) == m  # the signature verifies
    return (
        (struct.pack(">H", 2) + key_id[-1:] + blinded.to_bytes(mod_bytes, "big")).hex(),
        blind_sig.to_bytes(mod_bytes, "big").hex(),
        (token_input + sig.to_bytes(mod_bytes, "big")).hex(),
    )


# This implementation first reproduces pat-go's own case 0 byte for byte.
assert issue_type2(bytes.fromhex(base["token_challenge"]), bytes.fromhex(base["nonce"])) == (
    base["token_request"], base["token_response"], base["token"]), "differs from pat-go's case 0"

type2_cases = []
for i, (issuer, ctx, origin) in enumerate(NAMES):
    ch = challenge(0x0002, issuer, ctx, origin)
    nn = nonce(i, 0x0002)
    token_request, token_response, token = issue_type2(ch, nn)
    type2_cases.append({
        "skS": base["skS"],
        "pkS": base["pkS"],
        "token_challenge": ch.hex(),
        "nonce": nn.hex(),
        "blind": base["blind"],
        "salt": base["salt"],
        "token_request": token_request,
        "token_response": token_response,
        "token": token,
    })

out_dir.mkdir(parents=True, exist_ok=True)
for name, cases in [("token-test-vectors.json", token_cases), ("type2-issuance-test-vectors.json", type2_cases)]:
    (out_dir / name).write_text(json.dumps(cases, indent=2) + "\n")
    print(f"{name}: {len(cases)} cases")
