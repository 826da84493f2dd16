#!/usr/bin/env python3
"""Writes tests/vectors/negative/malformed.json: malformed messages of every
kind, built from the valid vectors by one deliberate defect each, with the
error the library must answer (the `Debug` form of `pat::Error`); the
ARC, ATHM and ACT kinds also hold their valid message, with "error": "Ok".

The expected error of each entry follows from the wire format and the error
contract documented in the crate (a read past the end is `Truncated`, bytes
after a complete message are `TrailingBytes`, a length prefix outside its
bounds is `InvalidLength(field)`, ...): it is written here by hand, never by
running the library. Deterministic: re-running gives the same file."""
import base64
import hashlib
import json
import pathlib
import struct
import sys

root = pathlib.Path(__file__).resolve().parent.parent
vec = root / "tests" / "vectors" / "pat-go" / "tokens"
out = root / "tests" / "vectors" / "negative" / "malformed.json"
h = bytes.fromhex


def load(name):
    return json.load(open(vec / name))


def varint(v):
    if v < 64:
        return bytes([v])
    if v < 16384:
        return struct.pack(">H", v | 0x4000)
    return struct.pack(">I", v | 0x80000000)


cases = []


def add(kind, what, data, error, **extra):
    entry = {"kind": kind, "description": what, "hex": data.hex(), "error": error}
    entry.update(extra)
    cases.append(entry)


def truncations(kind, good, cuts, error="Truncated", **extra):
    for n in cuts:
        add(kind, f"truncated to {n} of {len(good)} bytes", good[:n], error, **extra)


def trailing(kind, good, **extra):
    add(kind, "one trailing zero byte", good + b"\0", "TrailingBytes", **extra)
    add(kind, "sixteen trailing bytes", good + bytes(range(16)), "TrailingBytes", **extra)


def retyped(kind, good, expected, codes, **extra):
    for code in codes:
        add(kind, f"token type 0x{code:04x}", struct.pack(">H", code) + good[2:],
            f"WrongTokenType {{ expected: {expected}, found: {code} }}", **extra)


# --- TokenChallenge (RFC 9577 §2.1.1) --------------------------------------
t1 = load("private/type1-issuance-test-vectors.json")
ch = h(t1[0]["token_challenge"])  # type 1, issuer.example, 32-byte context, origin.example
truncations("token_challenge", ch, [0, 1, 2, 3, 4, 10, len(ch) - 1])
trailing("token_challenge", ch)


def challenge(tt, issuer, ctx, origin, ctx_len=None):
    return (struct.pack(">HH", tt, len(issuer)) + issuer + bytes([len(ctx) if ctx_len is None else ctx_len])
            + ctx + struct.pack(">H", len(origin)) + origin)


add("token_challenge", "empty issuer_name", challenge(1, b"", b"", b"o"), "InvalidLength(IssuerName)")
for n in [1, 16, 31]:
    add("token_challenge", f"redemption_context of {n} bytes", challenge(1, b"i", bytes(n), b""),
        "InvalidLength(RedemptionContext)")
add("token_challenge", "redemption_context of 33 bytes", challenge(1, b"i", bytes(33), b""),
    "InvalidLength(RedemptionContext)")
# Names are opaque bytes on the wire: a control byte, a non-ASCII issuer name
# or an empty origin-list item is not malformed (pat-go, privacypass and
# privacypass-ts accept them), so none of them is here; the library's tests
# decode them.
add("token_challenge", "origin_info length past the end", challenge(1, b"i", b"", b"ab")[:-1], "Truncated")

# --- Token (RFC 9577 §2.2) ---------------------------------------------------
tok1 = h(t1[0]["token"])
truncations("token", tok1, [0, 1, 2, 50, 97, 98, len(tok1) - 1])
trailing("token", tok1)
for code in [0x0000, 0x0004, 0x0006, 0xF91A, 0xFFFF]:
    add("token", f"unknown token type 0x{code:04x}", struct.pack(">H", code) + tok1[2:], f"UnknownTokenType({code})")
add("token", "type 0x0002 with a 48-byte authenticator", struct.pack(">H", 2) + tok1[2:], "Truncated")

# --- Types 0x0001 and 0x0005 (RFC 9578 §5) -----------------------------------
t5 = load("private/type5-issuance-test-vectors.json")
for name, vectors, code, ne, ns in [("type1", t1, 1, 49, 48), ("type5", t5, 5, 32, 32)]:
    req, resp = h(vectors[0]["token_request"]), h(vectors[0]["token_response"])
    kind = f"{name}_request"
    truncations(kind, req, [0, 1, 2, 3, len(req) - 1])
    trailing(kind, req)
    retyped(kind, req, code, [0x0000, 0x0002, 0x0003, 0x0005 if code == 1 else 0x0001, 0xFFFF])
    kind = f"{name}_response"
    truncations(kind, resp, [0, 1, ne - 1, ne, ne + ns, len(resp) - 1])
    trailing(kind, resp)
    add(kind, "an element's worth of trailing bytes", resp + resp[:ne], "TrailingBytes")

    # Crypto checks on parsed messages, with the file's key (case 0).
    kind = f"{name}_evaluate"
    prefix = req[:3]
    add(kind, "identity / all-zero element", prefix + bytes(ne), "InvalidElement")
    add(kind, "all-0xff element", prefix + b"\xff" * ne, "InvalidElement")
    if code == 1:
        add(kind, "uncompressed-point tag 0x04", prefix + b"\x04" + req[4:], "InvalidElement")
        add(kind, "tag 0x05", prefix + b"\x05" + req[4:], "InvalidElement")
        # x = 2^384 - 1 > p: not a field element.
        add(kind, "x coordinate above the field prime", prefix + b"\x02" + b"\xff" * 48, "InvalidElement")
    else:
        add(kind, "non-canonical encoding (s = p)",
            prefix + bytes.fromhex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"), "InvalidElement")
        add(kind, "negative field element (low bit set)", prefix + b"\x01" + bytes(31), "InvalidElement")
    add(kind, "truncated key id of another key", req[:2] + bytes([req[2] ^ 0xFF]) + req[3:], "KeyIdMismatch")
    kind = f"{name}_finalize"
    # A bit in the middle of a scalar keeps it canonical (far from the order
    # in both encodings), so the proof fails; a bit in the middle of the
    # compressed element may or may not leave a point on the curve.
    for start, size, where in [(0, ne, "evaluated element"), (ne, ns, "proof c"), (ne + ns, ns, "proof s")]:
        flipped = bytearray(resp)
        flipped[start + size // 2] ^= 0x01
        add(kind, f"one bit flipped in the {where}", bytes(flipped), "InvalidElement|Verification" if start == 0 else "Verification")
    order = ("ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973"
             if code == 1 else "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
    add(kind, "proof c equal to the group order", resp[:ne] + h(order) + resp[ne + ns:], "InvalidScalar")
    add(kind, "proof s equal to the group order", resp[:ne + ns] + h(order), "InvalidScalar")
    add(kind, "proof of all-0xff scalars", resp[:ne] + b"\xff" * (2 * ns), "InvalidScalar")

# --- Type 0x0002 (RFC 9578 §6) ------------------------------------------------
t2 = load("type2/type2-issuance-test-vectors.json")
req, resp = h(t2[0]["token_request"]), h(t2[0]["token_response"])
truncations("type2_request", req, [0, 1, 2, 3, 130, len(req) - 1])
trailing("type2_request", req)
retyped("type2_request", req, 2, [0x0001, 0x0003, 0x0005])
truncations("type2_response", resp, [0, 1, 128, 255])
trailing("type2_response", resp)
add("type2_response", "a second signature appended", resp + resp, "TrailingBytes")
add("type2_evaluate", "blinded message of all 0xff (above n)", req[:3] + b"\xff" * 256, "InvalidValue(Message)")
n_hex = h(t2[0]["pkS"])[81:81 + 256]
add("type2_evaluate", "blinded message equal to n", req[:3] + n_hex, "InvalidValue(Message)")
add("type2_evaluate", "truncated key id of another key", req[:2] + bytes([req[2] ^ 0x01]) + req[3:], "KeyIdMismatch")
for i in [0, 100, 255]:
    flipped = bytearray(resp)
    flipped[i] ^= 0x40 if i else 0x01
    add("type2_finalize", f"bit flipped in blind_sig byte {i}", bytes(flipped), "Verification")
add("type2_finalize", "blind signature of all 0xff (above n)", b"\xff" * 256, "Verification")

# --- Amortized batches ---------------------------------------------------------
a1 = load("amortized/type1-issuance-test-vectors.json")
req, resp = h(a1[0]["token_request"]), h(a1[0]["token_response"])  # 3 elements of 49 bytes
body = req[5:]
truncations("amortized1_request", req, [0, 1, 2, 3, 4, len(req) - 1])
trailing("amortized1_request", req)
add("amortized1_request", "wrong token type", struct.pack(">H", 5) + req[2:], "WrongTokenType { expected: 1, found: 5 }")
add("amortized1_request", "empty batch", req[:3] + b"\x00", "InvalidLength(Batch)")
add("amortized1_request", "length not a multiple of Ne", req[:3] + varint(len(body) - 1) + body[:-1],
    "InvalidLength(Batch)")
add("amortized1_request", "non-minimal 4-byte varint", req[:3] + struct.pack(">I", len(body) | 0x80000000) + body,
    "NonMinimalVarint")
add("amortized1_request", "varint claims one more element", req[:3] + varint(len(body) + 49) + body, "Truncated")
ebody = resp[2:2 + 147]
truncations("amortized1_response", resp, [0, 1, 2, 100, len(resp) - 1])
trailing("amortized1_response", resp)
add("amortized1_response", "empty batch", b"\x00" + resp[-96:], "InvalidLength(Batch)")
add("amortized1_response", "length not a multiple of Ne", varint(146) + ebody[:-1] + resp[-96:], "InvalidLength(Batch)")
add("amortized1_response", "non-minimal varint", struct.pack(">I", 147 | 0x80000000) + ebody + resp[-96:],
    "NonMinimalVarint")

# --- Generic batches -----------------------------------------------------------
bt = load("batched/batched-issuance-test-vectors.json")
req, resp = h(bt[4]["token_request"]), h(bt[4]["token_response"])  # types [1, 2]
body, rbody = req[2:], resp[2:]
truncations("batch_request", req, [0, 1, 2, 100, len(req) - 1])
trailing("batch_request", req)
add("batch_request", "entry of unknown type 0x0004", varint(52) + struct.pack(">H", 4) + body[2:52], "UnknownTokenType(4)")
add("batch_request", "entry of type 0x0003", varint(52) + struct.pack(">H", 3) + body[2:52], "UnknownTokenType(3)")
add("batch_request", "body ends inside the second entry", varint(len(body) - 1) + body[:-1], "InvalidLength(Batch)")
add("batch_request", "non-minimal varint", struct.pack(">I", len(body) | 0x80000000) + body, "NonMinimalVarint")
add("batch_request", "varint claims more than remains", varint(len(body) + 10) + body, "Truncated")
truncations("batch_response", resp, [0, 1, 2, 100, len(resp) - 1])
trailing("batch_response", resp)
add("batch_response", "presence byte 2", varint(1) + b"\x02", "InvalidValue(Batch)")
add("batch_response", "pat-go's failure encoding 01 | type | 00", varint(4) + b"\x01\x00\x01\x00", "InvalidLength(Batch)")
add("batch_response", "present entry of unknown type 0x0004", varint(4) + b"\x01\x00\x04\x00", "UnknownTokenType(4)")
add("batch_response", "non-minimal varint", struct.pack(">I", len(rbody) | 0x80000000) + rbody, "NonMinimalVarint")

# --- Type 0x0003 ------------------------------------------------------------------
enc = load("type3/type3-origin-encryption-test-vectors.json")[0]
ct = h(enc["encrypted_token_request"])
t3 = (struct.pack(">H", 3) + h(enc["request_key"]) + h(enc["issuer_encap_key_id"]) + struct.pack(">H", len(ct)) + ct
      + bytes(range(96)))
truncations("type3_request", t3, [0, 1, 2, 50, 83, 85, 200, len(t3) - 1])
trailing("type3_request", t3)
retyped("type3_request", t3, 3, [0x0002, 0x0001])
add("type3_request", "empty encrypted_token_request", t3[:83] + b"\x00\x00" + bytes(96),
    "InvalidLength(EncryptedTokenRequest)")
key = h(enc["issuer_encap_key"])
truncations("encap_key", key, [0, 1, 3, 35, 38])
trailing("encap_key", key)
add("encap_key", "KEM 0x0010 (P-256)", key[:1] + b"\x00\x10" + key[3:], "InvalidKey")
add("encap_key", "KDF 0x0002", key[:35] + b"\x00\x02" + key[37:], "InvalidKey")
add("encap_key", "AEAD 0x0003 (ChaCha20Poly1305)", key[:37] + b"\x00\x03", "InvalidKey")
inner_ok = bytes([135]) + h(enc["blinded_msg"]) + struct.pack(">H", 32) + b"test.example" + bytes(20)
truncations("inner_request", inner_ok, [0, 1, 100, 257, 258, len(inner_ok) - 1])
trailing("inner_request", inner_ok)
add("inner_request", "padded origin of 31 bytes", inner_ok[:257] + struct.pack(">H", 31) + b"test.example" + bytes(19),
    "InvalidLength(OriginName)")
add("inner_request", "padded origin of 0 bytes", inner_ok[:257] + struct.pack(">H", 0), "InvalidLength(OriginName)")

# --- Type 0xDA7A (draft-ietf-privacypass-public-metadata-issuance) -------------
# privacypass-ts's vector: ExtendedTokenRequest = type ‖ key id ‖ blinded_msg[256]
# ‖ Extensions (here 00 07 | 0001 0003 010203).
md = json.load(open(root / "tests" / "vectors" / "privacypass-ts" / "pub_verif_with_metadata_v3.json"))[0]
md_req, md_resp, md_ext, md_tok = (h(md[k]) for k in ["token_request", "token_response", "extensions", "token"])
assert md_req[259:] == md_ext
DA7A = 0xDA7A


def ext_list(entries):
    body = b"".join(struct.pack(">HH", t, len(v)) + v for t, v in entries)
    return struct.pack(">H", len(body)) + body


# One cut inside or after each field: type, key id, blinded_msg, the
# extensions' length prefix, an entry's header, an entry's data.
truncations("type_da7a_request", md_req, [0, 1, 2, 3, 130, 258, 259, 260, 261, 263, 265, len(md_req) - 1])
trailing("type_da7a_request", md_req)
retyped("type_da7a_request", md_req, DA7A, [0x0001, 0x0002, 0x0005, 0xFFFF])
head = md_req[:259]
add("type_da7a_request", "extensions length one past the end", head + b"\x00\x08" + md_ext[2:], "Truncated")
add("type_da7a_request", "extensions length 0xffff over 7 bytes", head + b"\xff\xff" + md_ext[2:], "Truncated")
add("type_da7a_request", "entry data length past the list", head + b"\x00\x07\x00\x01\x00\x04\x01\x02\x03",
    "InvalidLength(Extension)")
add("type_da7a_request", "entry header cut by the list", head + b"\x00\x03\x00\x01\x00", "InvalidLength(Extension)")
add("type_da7a_request", "unsorted types 2, 1", head + ext_list([(2, b""), (1, b"")]), "UnsortedExtensions")
add("type_da7a_request", "unsorted types 5, 5, 4", head + ext_list([(5, b"a"), (5, b""), (4, b"")]), "UnsortedExtensions")
add("type_da7a_request", "trailing byte after an empty list", head + b"\x00\x00\x00", "TrailingBytes")

# Extensions alone.
good = ext_list([(1, b"\x01\x02"), (2, b""), (0xFFFF, b"xyz")])
truncations("extensions", good, [0, 1, 2, 3, 5, 7, len(good) - 1])
trailing("extensions", good)
add("extensions", "trailing byte after the empty list", b"\x00\x00\x00", "TrailingBytes")
add("extensions", "length prefix 0xffff over 2 bytes", b"\xff\xff\x00\x01", "Truncated")
add("extensions", "entry data length past the list", b"\x00\x05\x00\x01\x00\x02\x09", "InvalidLength(Extension)")
add("extensions", "second entry's data past the list", b"\x00\x08\x00\x01\x00\x00\x00\x02\x00\x05",
    "InvalidLength(Extension)")
add("extensions", "entry header of 3 bytes", b"\x00\x03\x00\x01\x00", "InvalidLength(Extension)")
add("extensions", "entry header of 1 byte", b"\x00\x01\x00", "InvalidLength(Extension)")
add("extensions", "unsorted types 2, 1", ext_list([(2, b""), (1, b"")]), "UnsortedExtensions")
add("extensions", "unsorted types 0xffff, 0", ext_list([(0xFFFF, b"a"), (0, b"b")]), "UnsortedExtensions")
add("extensions", "unsorted third entry", ext_list([(1, b""), (3, b""), (2, b"")]), "UnsortedExtensions")

# TokenResponse of 0xDA7A: blind_sig[256].
truncations("type_da7a_response", md_resp, [0, 1, 2, 128, 254, 255])
trailing("type_da7a_response", md_resp)
add("type_da7a_response", "257 bytes (the signature and its first byte)", md_resp + md_resp[:1], "TrailingBytes")
add("type_da7a_response", "a second signature appended", md_resp + md_resp, "TrailingBytes")
add("type_da7a_response", "the whole ExtendedTokenRequest", md_req, "TrailingBytes")

# Authorization with extensions: parse, then decode the token and the
# extensions (tests/negative.rs, kind authorization_extensions).
b64 = lambda b: base64.urlsafe_b64encode(b).decode()
tok, ext = b64(md_tok), b64(md_ext)


def auth(what, header, error):
    add("authorization_extensions", what, header.encode(), error)


auth("extensions parameter twice", f'PrivateToken token="{tok}", extensions="{ext}", extensions="{ext}"',
     "DuplicateParameter(Extensions)")
auth("extensions parameter twice, other case", f'PrivateToken extensions="{ext}", token="{tok}", Extensions=AAA',
     "DuplicateParameter(Extensions)")
auth("token parameter twice", f'PrivateToken token="{tok}", extensions="{ext}", token="{tok}"',
     "DuplicateParameter(Token)")
auth("missing token", f'PrivateToken extensions="{ext}"', "MissingParameter(Token)")
auth("missing token, other parameter", f'PrivateToken tokens="{tok}", extensions="{ext}"', "MissingParameter(Token)")
auth("other scheme", f'Bearer token="{tok}", extensions="{ext}"', "MalformedHeader")
auth("token68 form", f'PrivateToken {tok}', "MalformedHeader")
auth("two credentials", f'PrivateToken token="{tok}", extensions="{ext}", PrivateToken token="{tok}"',
     "MalformedHeader")
auth("standard base64 '+' in extensions", f'PrivateToken token="{tok}", extensions="AAcAAQADAQI+"', "InvalidBase64")
auth("standard base64 '/' in extensions", f'PrivateToken token="{tok}", extensions="AAcAAQADAQI/"', "InvalidBase64")
auth("padding inside extensions", f'PrivateToken token="{tok}", extensions="AA==AAEAAwECAw"', "InvalidBase64")
auth("one dangling character in extensions", f'PrivateToken token="{tok}", extensions="AAcAAQADAQIDA"', "InvalidBase64")
auth("bad base64 in the token", f'PrivateToken token="{tok[:-4]}*AAA", extensions="{ext}"', "InvalidBase64")
auth("empty extensions", f'PrivateToken token="{tok}", extensions=""', "Truncated")
auth("extensions cut by one byte", f'PrivateToken token="{tok}", extensions="{b64(md_ext[:-1])}"', "Truncated")
auth("extensions with a trailing byte", f'PrivateToken token="{tok}", extensions="{b64(md_ext + bytes(1))}"',
     "TrailingBytes")
auth("extensions entry past the list", f'PrivateToken token="{tok}", extensions="{b64(bytes.fromhex("0007000100040102ff"))}"',
     "InvalidLength(Extension)")
auth("unsorted extensions", f'PrivateToken token="{tok}", extensions="{b64(ext_list([(2, b""), (1, b"")]))}"',
     "UnsortedExtensions")

# --- ARC, token type 0xE5AC (draft-ietf-privacypass-arc-crypto-01 and -protocol-01)
# The valid messages are the crypto draft's vectors (tests/vectors/arc/, limit
# 2), and the token-layer messages around them: a challenge, the
# CredentialRequest (type ‖ truncated key id ‖ the vector's request) and a
# token (header ‖ Presentation1). Decoders do not check proofs, so the
# header fields need no signature. Entries with "error": "Ok" are the valid
# message of each kind, which must decode; kinds with a "limit" decode under it.
ARC = 0xE5AC
arcv = json.load(open(root / "tests" / "vectors" / "arc" / "draft-ietf-privacypass-arc-crypto-01.json"))["ARCV1-P256"]


def av(group, *names):
    return b"".join(h(arcv[group][n]) for n in names)


# P-256 (SEC 1 §2.4.2 / FIPS 186-5): a = -3.
P = 2**256 - 2**224 + 2**192 + 2**96 - 1
N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551
B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b


def rhs(x):
    return (x ** 3 - 3 * x + B) % P


def on_curve_x(x):  # Euler's criterion: x³ - 3x + b is a square mod p
    return rhs(x) == 0 or pow(rhs(x), (P - 1) // 2, P) == 1


def decompress(e):
    x = int.from_bytes(e[1:], "big")
    y = pow(rhs(x), (P + 1) // 4, P)  # p ≡ 3 (mod 4)
    return (x, y if y % 2 == e[0] % 2 else P - y)


def add_pt(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0] and (a[1] + b[1]) % P == 0:
        return None
    if a == b:
        m = (3 * a[0] * a[0] - 3) * pow(2 * a[1], -1, P) % P
    else:
        m = (b[1] - a[1]) * pow(b[0] - a[0], -1, P) % P
    x = (m * m - a[0] - b[0]) % P
    return (x, (m * (a[0] - x) - a[1]) % P)


def mul_pt(k, pt):
    acc = None
    while k:
        if k & 1:
            acc = add_pt(acc, pt)
        pt, k = add_pt(pt, pt), k >> 1
    return acc


def compress(pt):
    return bytes([2 + pt[1] % 2]) + pt[0].to_bytes(32, "big")


x_off = next(x for x in range(1, 100) if not on_curve_x(x))  # a small x with no point
x_on = next(x for x in range(1, 100) if on_curve_x(x))       # a small x with a point
assert on_curve_x(int.from_bytes(av("ServerKey", "X0")[1:], "big"))
# Bad 33-byte elements, each with what makes it bad; every one is InvalidElement.
BAD_ELEMENTS = [
    ("uncompressed-point tag 0x04", lambda e: b"\x04" + e[1:]),
    ("identity tag 0x00", lambda e: b"\x00" + e[1:]),
    ("all-zero element", lambda e: bytes(33)),
    (f"x = {x_off}, not on the curve", lambda e: b"\x02" + x_off.to_bytes(32, "big")),
    ("x = 2^256 - 1 (at least p)", lambda e: b"\x03" + b"\xff" * 32),
    ("x = p", lambda e: b"\x02" + P.to_bytes(32, "big")),
    (f"x = p + {x_on} (a point's x, unreduced)", lambda e: b"\x02" + (P + x_on).to_bytes(32, "big")),
]


def bad_elements(kind, good, offset, where, which=None, **extra):
    for what, make in BAD_ELEMENTS if which is None else [BAD_ELEMENTS[i] for i in which]:
        e = make(good[offset:offset + 33])
        add(kind, f"{where}: {what}", good[:offset] + e + good[offset + 33:], "InvalidElement", **extra)


def with_scalar(good, offset, value):
    return good[:offset] + value.to_bytes(32, "big") + good[offset + 32:]


LIMIT = 2
LIMITS_OUT = [0, 1, 2**32 + 1]
WRONG_TYPES = [0x0001, 0x0002, 0x0005, 0xDA7A, 0xACE5, 0xE5AD]

pk = av("ServerKey", "X0", "X1", "X2")
key_id = hashlib.sha256(pk).digest()


def arc_challenge(issuer, rctx, origin, cctx, cctx_len=None, tt=ARC):
    return challenge(tt, issuer, rctx, origin) + bytes([len(cctx) if cctx_len is None else cctx_len]) + cctx


# ArcChallenge: the RFC 9577 fields, then credential_context<0..32> (0 or 32 bytes).
ach = arc_challenge(b"issuer.example", bytes(range(32)), b"origin.example", bytes(range(100, 132)))
add("arc_challenge", "valid: 32-byte redemption and credential contexts", ach, "Ok")
add("arc_challenge", "valid: empty contexts", arc_challenge(b"issuer.example", b"", b"", b""), "Ok")
# 52 = the RFC 9577 challenge alone (no credential_context length byte).
truncations("arc_challenge", ach, [0, 1, 2, 3, 4, 20, 52, 86, 87, 88, len(ach) - 1])
trailing("arc_challenge", ach)
retyped("arc_challenge", ach, ARC, WRONG_TYPES + [0x0000])
for n in [1, 31, 33]:
    add("arc_challenge", f"credential_context of {n} bytes",
        arc_challenge(b"issuer.example", b"", b"o", bytes(n)), "InvalidLength(CredentialContext)")
add("arc_challenge", "credential_context length 255", arc_challenge(b"i", b"", b"", bytes(255)),
    "InvalidLength(CredentialContext)")
add("arc_challenge", "credential_context length 32 over 31 bytes",
    arc_challenge(b"i", b"", b"", bytes(31), cctx_len=32), "Truncated")
add("arc_challenge", "redemption_context of 16 bytes", arc_challenge(b"i", bytes(16), b"", bytes(32)),
    "InvalidLength(RedemptionContext)")
add("arc_challenge", "empty issuer_name", arc_challenge(b"", b"", b"", bytes(32)), "InvalidLength(IssuerName)")

# CredentialRequest (arc-protocol §5.1): type ‖ truncated key id ‖ m1Enc ‖ m2Enc ‖ proof.
areq = struct.pack(">H", ARC) + key_id[-1:] + av("CredentialRequest", "m1_enc", "m2_enc", "proof")
assert len(areq) == 229
add("arc_request", "valid: the vector's request", areq, "Ok")
truncations("arc_request", areq, [0, 1, 2, 3, 35, 36, 69, 100, len(areq) - 1])
trailing("arc_request", areq)
add("arc_request", "two requests", areq + areq, "TrailingBytes")
retyped("arc_request", areq, ARC, WRONG_TYPES)
bad_elements("arc_request", areq, 3, "m1Enc")
bad_elements("arc_request", areq, 36, "m2Enc", which=[0, 3, 6])

# CredentialResponse (crypto §4.2.2): U ‖ encUPrime ‖ X0Aux ‖ X1Aux ‖ X2Aux ‖ HAux ‖ proof[256].
aresp = av("CredentialResponse", "U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux", "proof")
assert len(aresp) == 454
add("arc_response", "valid: the vector's response", aresp, "Ok")
truncations("arc_response", aresp, [0, 1, 32, 33, 197, 198, len(aresp) - 1])
trailing("arc_response", aresp)
bad_elements("arc_response", aresp, 0, "U")
bad_elements("arc_response", aresp, 165, "HAux", which=[0, 1, 3, 5])

# Presentation (crypto §4.3.2) under limit 2 (k = 1): U ‖ UPrimeCommit ‖
# m1Commit ‖ tag ‖ nonceCommit ‖ D[0] ‖ challenge ‖ 9 responses.
apres = av("Presentation1", "U", "U_prime_commit", "m1_commit", "tag", "nonce_commit", "proof")
assert len(apres) == 165 + 33 + 9 * 32
L = {"limit": LIMIT}
add("arc_presentation", "valid: Presentation1", apres, "Ok", **L)
add("arc_presentation", "valid: Presentation2",
    av("Presentation2", "U", "U_prime_commit", "m1_commit", "tag", "nonce_commit", "proof"), "Ok", **L)
truncations("arc_presentation", apres, [0, 1, 33, 164, 165, 197, 198, len(apres) - 1], **L)
trailing("arc_presentation", apres, **L)
for limit in LIMITS_OUT + [2**64 - 1]:
    add("arc_presentation", f"limit {limit}", apres, "InvalidValue(PresentationLimit)", limit=limit)
add("arc_presentation", "limit 0, empty", b"", "InvalidValue(PresentationLimit)", limit=0)
# k = 2 for limits 3 and 4, 32 for 2^32: the limit-2 presentation is short.
for limit in [3, 4, 2**32]:
    add("arc_presentation", f"a limit-2 presentation read under limit {limit}", apres, "Truncated", limit=limit)
add("arc_presentation", "limit 3 with a second D and its three responses", apres + bytes(33 + 96),
    "InvalidElement", limit=3)
bad_elements("arc_presentation", apres, 0, "U", which=[0, 1, 3, 4], **L)
bad_elements("arc_presentation", apres, 99, "tag", which=[0, 2, 5], **L)
bad_elements("arc_presentation", apres, 132, "nonceCommit", which=[3, 6], **L)
bad_elements("arc_presentation", apres, 165, "D[0]", which=[0, 3, 6], **L)

# Token (arc-protocol §6.1): type ‖ presentation_nonce ‖ challenge_digest ‖
# issuer_key_id ‖ presentation. The presentation is not decoded here.
atok = struct.pack(">HI", ARC, 0) + hashlib.sha256(ach).digest() + key_id + apres
assert len(atok) == 70 + 486
add("arc_token", "valid: a token around Presentation1", atok, "Ok", **L)
truncations("arc_token", atok, [0, 1, 2, 5, 6, 37, 38, 69, 70, 300, len(atok) - 1], **L)
trailing("arc_token", atok, **L)
retyped("arc_token", atok, ARC, WRONG_TYPES, **L)
for limit in LIMITS_OUT:
    add("arc_token", f"limit {limit}", atok, "InvalidValue(PresentationLimit)", limit=limit)
add("arc_token", "limit 0, empty", b"", "InvalidValue(PresentationLimit)", limit=0)
add("arc_token", "limit 0, wrong type (the limit is checked first)", struct.pack(">H", 1) + atok[2:],
    "InvalidValue(PresentationLimit)", limit=0)
for limit in [3, 2**32]:
    add("arc_token", f"a limit-2 token read under limit {limit}", atok, "Truncated", limit=limit)

# ServerPublicKey (crypto §4.1): X0 ‖ X1 ‖ X2.
add("arc_public_key", "valid: the vector's key", pk, "Ok")
truncations("arc_public_key", pk, [0, 1, 32, 33, 66, len(pk) - 1])
trailing("arc_public_key", pk)
bad_elements("arc_public_key", pk, 0, "X0")
bad_elements("arc_public_key", pk, 33, "X1", which=[0, 3])
bad_elements("arc_public_key", pk, 66, "X2", which=[1, 5])

# ServerPrivateKey::from_bytes: x0 ‖ x1 ‖ x2 ‖ x0Blinding, each in [1, n).
sk = av("ServerKey", "x0", "x1", "x2", "xb")
add("arc_private_key", "valid: the vector's key", sk, "Ok")
add("arc_private_key", "valid: every scalar n - 1", (N - 1).to_bytes(32, "big") * 4, "Ok")
for n in [0, 1, 96, 127, 129, 160]:
    add("arc_private_key", f"{n} bytes", (sk * 2)[:n], "InvalidLength(Key)")
for i, name in enumerate(["x0", "x1", "x2", "xb"]):
    add("arc_private_key", f"{name} = n", with_scalar(sk, 32 * i, N), "InvalidKey")
    add("arc_private_key", f"{name} = 0", with_scalar(sk, 32 * i, 0), "InvalidKey")
add("arc_private_key", "x1 = n + 1", with_scalar(sk, 32, N + 1), "InvalidKey")
add("arc_private_key", "xb = 2^256 - 1", with_scalar(sk, 96, 2**256 - 1), "InvalidKey")

# CredentialRequestState::import: m1 ‖ r1 ‖ r2 ‖ m1Enc ‖ m2Enc (scalars below n; zero allowed).
rst = av("CredentialRequest", "m1", "r1", "r2", "m1_enc", "m2_enc")
assert len(rst) == 162
add("arc_request_state", "valid: the vector's state", rst, "Ok")
for n in [0, 1, 96, 161, 163, 324]:
    add("arc_request_state", f"{n} bytes", (rst * 2)[:n], "InvalidLength(State)")
add("arc_request_state", "m1 = n", with_scalar(rst, 0, N), "InvalidScalar")
add("arc_request_state", "r1 = 2^256 - 1", with_scalar(rst, 32, 2**256 - 1), "InvalidScalar")
add("arc_request_state", "r2 = n + 1", with_scalar(rst, 64, N + 1), "InvalidScalar")
bad_elements("arc_request_state", rst, 96, "m1Enc", which=[0, 1, 3, 5])
bad_elements("arc_request_state", rst, 129, "m2Enc", which=[2, 6])

# Credential::import: m1 ‖ U ‖ UPrime ‖ X1.
cred = av("Credential", "m1", "U", "U_prime", "X1")
assert len(cred) == 131
add("arc_credential", "valid: the vector's credential", cred, "Ok")
for n in [0, 1, 32, 130, 132, 262]:
    add("arc_credential", f"{n} bytes", (cred * 2)[:n], "InvalidLength(State)")
add("arc_credential", "m1 = n", with_scalar(cred, 0, N), "InvalidScalar")
add("arc_credential", "m1 = 2^256 - 1", with_scalar(cred, 0, 2**256 - 1), "InvalidScalar")
bad_elements("arc_credential", cred, 32, "U", which=[0, 3])
bad_elements("arc_credential", cred, 65, "UPrime", which=[1, 4])
bad_elements("arc_credential", cred, 98, "X1", which=[2, 6])

# PresentationState::import: credential ‖ generatorT ‖ next nonce (u64) ‖ limit (u64).
# generatorT = HashToGroup(presentation_context, "Tag"); Presentation1 (nonce 0)
# has tag = generatorT / (m1 + 0), so generatorT = m1 · tag, and Presentation2
# (nonce 1) agrees: (m1 + 1) · tag2 is the same point.
m1 = int.from_bytes(av("Credential", "m1"), "big")
gen_t = mul_pt(m1, decompress(av("Presentation1", "tag")))
assert gen_t == mul_pt(m1 + 1, decompress(av("Presentation2", "tag")))
gen_t = compress(gen_t)


def pstate(nonce, limit, credential=cred, t=gen_t):
    return credential + t + struct.pack(">QQ", nonce, limit)


pst = pstate(0, LIMIT)
assert len(pst) == 180
add("arc_presentation_state", "valid: nonce 0, limit 2", pst, "Ok")
add("arc_presentation_state", "valid: used up (nonce 2, limit 2)", pstate(2, 2), "Ok")
add("arc_presentation_state", "valid: nonce 2^32, limit 2^32", pstate(2**32, 2**32), "Ok")
for n in [0, 1, 131, 179, 181, 360]:
    add("arc_presentation_state", f"{n} bytes", (pst * 2)[:n], "InvalidLength(State)")
for nonce, limit in [(3, 2), (2**64 - 1, 2), (2**32 + 1, 2**32), (17, 16)]:
    add("arc_presentation_state", f"next nonce {nonce} above limit {limit}", pstate(nonce, limit),
        "InvalidValue(State)")
for limit in LIMITS_OUT + [2**64 - 1]:
    add("arc_presentation_state", f"limit {limit}", pstate(0, limit), "InvalidValue(State)")
add("arc_presentation_state", "m1 = n", pstate(0, 2, credential=with_scalar(cred, 0, N)), "InvalidScalar")
add("arc_presentation_state", "m1 = 2^256 - 1", pstate(0, 2, credential=with_scalar(cred, 0, 2**256 - 1)),
    "InvalidScalar")
bad_elements("arc_presentation_state", pst, 32, "U", which=[3])
bad_elements("arc_presentation_state", pst, 131, "generatorT", which=[0, 1, 3, 6])

# --- Type 0xDA7B (draft-ietf-privacypass-public-metadata-issuance §5) ----------
# pat's own vector (tests/vectors/pat/, case 2, three extensions, one of them
# without data): ExtendedTokenRequest = type ‖ key id ‖ blinded_msg[49] ‖
# Extensions (here 00 2b | c174 001a <26 bytes> | ecf3 0000 | ecf3 0005 <5 bytes>),
# TokenResponse = evaluate_msg[49] ‖ c[48] ‖ s[48]. The evaluate and finalize
# kinds run with that case's key, nonce, blind and extensions
# (tests/negative.rs).
pv = json.load(open(root / "tests" / "vectors" / "pat" / "type-da7b-issuance-test-vectors.json"))[2]
pv_req, pv_resp, pv_ext = (h(pv[k]) for k in ["token_request", "token_response", "extensions"])
assert pv_req[52:] == pv_ext and len(pv_ext) == 45 and len(pv_resp) == 145
DA7B = 0xDA7B
pv_head = pv_req[:52]
# One cut inside or after each field: type, key id, blinded_msg, the
# extensions' length prefix, each entry's header and data.
truncations("type_da7b_request", pv_req, [0, 1, 2, 3, 27, 51, 53, 56, 58, 84, 86, 92, len(pv_req) - 1])
trailing("type_da7b_request", pv_req)
retyped("type_da7b_request", pv_req, DA7B, [DA7A, 0x0001, 0x0005])
add("type_da7b_request", "extensions length one past the end", pv_head + b"\x00\x2c" + pv_ext[2:], "Truncated")
add("type_da7b_request", "extensions length 0xffff over 43 bytes", pv_head + b"\xff\xff" + pv_ext[2:], "Truncated")
add("type_da7b_request", "extensions length one short (the last entry past the list)", pv_head + b"\x00\x2a" + pv_ext[2:],
    "InvalidLength(Extension)")
add("type_da7b_request", "entry data length past the list", pv_head + b"\x00\x07\x00\x01\x00\x04\x01\x02\x03",
    "InvalidLength(Extension)")
add("type_da7b_request", "unsorted types 0xecf3, 0xc174", pv_head + ext_list([(0xECF3, b""), (0xC174, b"x")]),
    "UnsortedExtensions")
add("type_da7b_request", "unsorted third entry", pv_head + ext_list([(1, b""), (3, b"a"), (2, b"")]),
    "UnsortedExtensions")
add("type_da7b_request", "trailing byte after an empty list", pv_head + b"\x00\x00\x00", "TrailingBytes")
add("type_da7b_request", "no extensions at all (the type 0x0001 layout)", pv_head, "Truncated")

# The 0xDA7B token (Nk = 48) as a Token, and with its extensions in an
# Authorization header.
pv_tok = h(pv["token"])
add("token", "type 0xDA7B token cut by one byte", pv_tok[:-1], "Truncated")
add("token", "type 0xDA7B token with a trailing byte", pv_tok + b"\0", "TrailingBytes")
add("token", "type 0xDA7A with a 48-byte authenticator", struct.pack(">H", DA7A) + pv_tok[2:], "Truncated")
tok_b, ext_b = b64(pv_tok), b64(pv_ext)
auth("type 0xDA7B: extensions cut by one byte", f'PrivateToken token="{tok_b}", extensions="{b64(pv_ext[:-1])}"',
     "Truncated")
auth("type 0xDA7B: unsorted extensions",
     f'PrivateToken token="{tok_b}", extensions="{b64(ext_list([(0xECF3, b""), (0xC174, b"x")]))}"',
     "UnsortedExtensions")
auth("type 0xDA7B: token cut in base64", f'PrivateToken token="{tok_b[:-3]}", extensions="{ext_b}"', "InvalidBase64")

# TokenResponse of 0xDA7B: the type 0x0001 layout.
truncations("type_da7b_response", pv_resp, [0, 1, 48, 49, 97, len(pv_resp) - 1])
trailing("type_da7b_response", pv_resp)
add("type_da7b_response", "an element's worth of trailing bytes", pv_resp + pv_resp[:49], "TrailingBytes")
add("type_da7b_response", "the extensions appended", pv_resp + pv_ext, "TrailingBytes")

# Crypto checks on parsed messages, with the case's key: the key id is
# checked first, then the element.
pv_prefix = pv_req[:3]
for what, element in [("identity / all-zero element", bytes(49)), ("all-0xff element", b"\xff" * 49),
                      ("uncompressed-point tag 0x04", b"\x04" + pv_req[4:52]), ("tag 0x05", b"\x05" + pv_req[4:52]),
                      ("x coordinate above the field prime", b"\x02" + b"\xff" * 48)]:
    add("type_da7b_evaluate", what, pv_prefix + element + pv_ext, "InvalidElement")
add("type_da7b_evaluate", "truncated key id of another key", pv_req[:2] + bytes([pv_req[2] ^ 0xFF]) + pv_req[3:],
    "KeyIdMismatch")
add("type_da7b_evaluate", "another key's id and a bad element", pv_req[:2] + bytes([pv_req[2] ^ 0xFF]) + bytes(49)
    + pv_ext, "KeyIdMismatch")

for start, size, where in [(0, 49, "evaluated element"), (49, 48, "proof c"), (97, 48, "proof s")]:
    flipped = bytearray(pv_resp)
    flipped[start + size // 2] ^= 0x01
    add("type_da7b_finalize", f"one bit flipped in the {where}", bytes(flipped),
        "InvalidElement|Verification" if start == 0 else "Verification")
P384_ORDER = h("ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973")
add("type_da7b_finalize", "proof c equal to the group order", pv_resp[:49] + P384_ORDER + pv_resp[97:], "InvalidScalar")
add("type_da7b_finalize", "proof s equal to the group order", pv_resp[:97] + P384_ORDER, "InvalidScalar")
add("type_da7b_finalize", "proof of all-0xff scalars", pv_resp[:49] + b"\xff" * 96, "InvalidScalar")
add("type_da7b_finalize", "identity / all-zero evaluated element", bytes(49) + pv_resp[49:], "InvalidElement")
# The issuer's response to the same request under other extensions (none):
# a well-formed response with a valid proof for another tweaked key, which
# the client, finalizing with the request's extensions, must refuse. Computed
# with tools/poprf_da7b.py (RFC 9497 in Python, not pat).
sys.dont_write_bytecode = True  # no __pycache__ in tools/
sys.path.insert(0, str(root / "tools"))
import poprf_da7b  # noqa: E402

_blinded = poprf_da7b.deserialize_element(pv_req[3:52])
[_evaluated], _proof = poprf_da7b.blind_evaluate(poprf_da7b.deserialize_scalar(h(pv["skS"])), [_blinded], b"\x00\x00",
                                                 poprf_da7b.deserialize_scalar(h(pv["proof_random_scalar"])))
add("type_da7b_finalize", "the response under empty extensions", poprf_da7b.serialize_element(_evaluated) + _proof,
    "Verification")

# --- ATHM(P-256) and type 0xC07E (draft-yun-cfrg-athm-00, draft-yun-privacypass-athm-00)
# The valid messages are the reference's vectors (tests/vectors/athm/, N = 4,
# deployment id "test_vector_deployment_id", hidden value 3) framed as Privacy
# Pass messages: TokenRequest = 0xC07E ‖ last byte of the key id ‖ T[33]
# (36 bytes); TokenResponse = U ‖ V ‖ ts ‖ C ‖ e_0..e_3 ‖ a_0..a_3 ‖ a_d ‖
# a_rho ‖ a_w (483 bytes); Token = 0xC07E ‖ key id ‖ t ‖ P ‖ Q (132 bytes);
# RequestState = r ‖ tc ‖ T ‖ key id (129 bytes); token key = Z ‖ C_x ‖ C_y ‖
# e ‖ a_z (163 bytes); private key = x ‖ y ‖ z ‖ r_x ‖ r_y (160 bytes). Each
# kind holds its valid message ("error": "Ok"). The issue, finalize and verify
# kinds run with the vectors' key, the vector's request state and params
# (tests/negative.rs); the decoders check no proof.
athm = {p["procedure"]: p for p in json.load(open(root / "tests" / "vectors" / "athm" / "test_vectors.json"))}
ao = lambda proc, f: h(athm[proc]["output"][f])
C07E = 0xC07E
ath_sk = ao("key_gen", "private_key")
ath_pk, ath_proof, ath_kid = ao("key_gen", "public_key"), ao("key_gen", "public_key_proof"), ao("key_gen", "key_id")
assert hashlib.sha256(ath_pk).digest() == ath_kid and len(ath_sk) == 160
ath_ctx, ath_t = ao("token_request", "token_context"), ao("token_request", "token_request")
ath_resp, ath_tok = ao("token_response", "token_response"), ao("finalize_token", "token")
assert len(ath_resp) == 483 and len(ath_tok) == 98
ath_req = struct.pack(">H", C07E) + ath_kid[-1:] + ath_t
ath_token = struct.pack(">H", C07E) + ath_kid + ath_tok
ath_state = b"\x01\x04\xc0\x7e" + ath_ctx + ath_t + ath_kid
ath_key = ath_pk + ath_proof
C07E_WRONG_TYPES = [0x0001, 0x0002, 0x0005, 0xDA7B, 0xE5AC, 0xC7D3]  # 0xC7D3: the draft's one-off spelling


def flip(good, at, bits=0x01):
    out = bytearray(good)
    out[at] ^= bits
    return bytes(out)


def element_flip_error(good, at):
    """The error of a 33-byte element with bit 0 of its middle byte flipped:
    InvalidElement when the new x has no point, else what follows."""
    x = int.from_bytes(flip(good, at + 16)[at + 1:at + 33], "big")
    return None if x < P and on_curve_x(x) else "InvalidElement"


def scalar_flip_ok(good, at):
    return int.from_bytes(flip(good, at + 16)[at:at + 32], "big") < N


# TokenRequest.
add("type_c07e_request", "valid: the vector's request", ath_req, "Ok")
truncations("type_c07e_request", ath_req, [0, 1, 2, 3, 4, 20, len(ath_req) - 1])
trailing("type_c07e_request", ath_req)
add("type_c07e_request", "two requests", ath_req + ath_req, "TrailingBytes")
retyped("type_c07e_request", ath_req, C07E, C07E_WRONG_TYPES)
bad_elements("type_c07e_request", ath_req, 3, "T")
# Issuer::issue (hidden value 3): the truncated key id is its one check.
add("type_c07e_issue", "valid: the vector's request", ath_req, "Ok")
for kid in [ath_kid[-1] ^ 0xFF, 0x00, ath_kid[-1] + 1]:
    add("type_c07e_issue", f"truncated key id 0x{kid:02x} of another key", ath_req[:2] + bytes([kid]) + ath_t,
        "KeyIdMismatch")

# TokenResponse<4>: every element and scalar, the lengths of N = 3 and N = 5.
R_U, R_V, R_TS, R_C, R_E, R_A, R_AD, R_ARHO, R_AW = 0, 33, 66, 98, 131, 259, 387, 419, 451
add("type_c07e_response", "valid: the vector's response", ath_resp, "Ok")
truncations("type_c07e_response", ath_resp, [0, 1, 32, 33, 66, 98, 131, 259, 387, 482])
add("type_c07e_response", "419 bytes (a response for N = 3)", ath_resp[:419], "Truncated")
trailing("type_c07e_response", ath_resp)
add("type_c07e_response", "547 bytes (a response for N = 5)", ath_resp + ath_resp[R_A:R_A + 64], "TrailingBytes")
bad_elements("type_c07e_response", ath_resp, R_U, "U", which=[0, 2, 3])
bad_elements("type_c07e_response", ath_resp, R_V, "V", which=[1, 2, 4])
bad_elements("type_c07e_response", ath_resp, R_C, "C", which=[0, 2, 3, 5])
for at, name, value, what in [(R_TS, "ts", N, "n"), (R_E, "e_0", N, "n"), (R_E + 96, "e_3", 2**256 - 1, "2^256 - 1"),
                              (R_A, "a_0", N + 1, "n + 1"), (R_AD, "a_d", N, "n"),
                              (R_ARHO, "a_rho", 2**256 - 1, "2^256 - 1"), (R_AW, "a_w", N, "n")]:
    add("type_c07e_response", f"{name} = {what}", with_scalar(ath_resp, at, value), "InvalidScalar")
# Client::finalize with the vector's state: the issuance proof.
add("type_c07e_finalize", "valid: the vector's response", ath_resp, "Ok")
for at, name in [(R_U, "U"), (R_V, "V"), (R_C, "C")]:
    add("type_c07e_finalize", f"one bit flipped in {name}", flip(ath_resp, at + 16),
        element_flip_error(ath_resp, at) or "Verification")
for at, name in [(R_TS, "ts"), (R_E, "e_0"), (R_E + 96, "e_3"), (R_A + 32, "a_1"), (R_AD, "a_d"),
                 (R_ARHO, "a_rho"), (R_AW, "a_w")]:
    assert scalar_flip_ok(ath_resp, at)
    add("type_c07e_finalize", f"one bit flipped in {name}", flip(ath_resp, at + 16), "Verification")
add("type_c07e_finalize", "U and V swapped", ath_resp[R_V:R_TS] + ath_resp[R_U:R_V] + ath_resp[R_TS:], "Verification")
add("type_c07e_finalize", "e_0 and e_1 swapped",
    ath_resp[:R_E] + ath_resp[R_E + 32:R_E + 64] + ath_resp[R_E:R_E + 32] + ath_resp[R_E + 64:], "Verification")
add("type_c07e_finalize", "e_i and a_i exchanged",
    ath_resp[:R_E] + ath_resp[R_A:R_AD] + ath_resp[R_E:R_A] + ath_resp[R_AD:], "Verification")

# Token: t a scalar, P and Q points.
T_T, T_P, T_Q = 34, 66, 99
add("type_c07e_token", "valid: the vector's token", ath_token, "Ok")
truncations("type_c07e_token", ath_token, [0, 1, 2, 33, 34, 65, 66, 98, 99, len(ath_token) - 1])
trailing("type_c07e_token", ath_token)
retyped("type_c07e_token", ath_token, C07E, C07E_WRONG_TYPES)
for value, what in [(N, "n"), (N + 1, "n + 1"), (2**256 - 1, "2^256 - 1")]:
    add("type_c07e_token", f"t = {what}", with_scalar(ath_token, T_T, value), "InvalidScalar")
bad_elements("type_c07e_token", ath_token, T_P, "P", which=[0, 2, 3, 4])
bad_elements("type_c07e_token", ath_token, T_Q, "Q", which=[1, 2, 3, 6])
# Issuer::verify: Q = (x + t·z + i·y)·P for a bucket i below N. Tokens made
# here with the private key: value 3 is the vector's own token; values 4 and
# 255 are outside the 4 buckets. (t, k·P, k·Q) is the same token (the
# redeemer keys on t).
sx, sy, sz = (int.from_bytes(ath_sk[i:i + 32], "big") for i in (0, 32, 64))
tt = int.from_bytes(ath_token[T_T:T_T + 32], "big")
tp = decompress(ath_token[T_P:T_P + 33])


def athm_token(t, p, value):
    q = mul_pt((sx + t * sz + value * sy) % N, p)
    return ath_token[:T_T] + t.to_bytes(32, "big") + compress(p) + compress(q)


assert athm_token(tt, tp, 3) == ath_token
add("type_c07e_verify", "valid: the vector's token (value 3)", ath_token, "Ok")
add("type_c07e_verify", "valid: value 0, made with the private key", athm_token(tt, tp, 0), "Ok")
add("type_c07e_verify", "valid: (t, 5·P, 5·Q), the vector's token rescaled",
    ath_token[:T_P] + compress(mul_pt(5, tp)) + compress(mul_pt(5, decompress(ath_token[T_Q:]))), "Ok")
add("type_c07e_verify", "another key id", flip(ath_token, 2 + 31), "KeyIdMismatch")
add("type_c07e_verify", "value 4, outside the buckets", athm_token(tt, tp, 4), "Verification")
add("type_c07e_verify", "value 255, outside the buckets", athm_token(tt, tp, 255), "Verification")
add("type_c07e_verify", "t + 1", with_scalar(ath_token, T_T, (tt + 1) % N), "Verification")
add("type_c07e_verify", "P and Q swapped", ath_token[:T_P] + ath_token[T_Q:] + ath_token[T_P:T_Q], "Verification")
add("type_c07e_verify", "Q = P", ath_token[:T_Q] + ath_token[T_P:T_Q], "Verification")
add("type_c07e_verify", "Q negated", flip(ath_token, T_Q, 0x01), "Verification")
add("type_c07e_verify", "P negated", flip(ath_token, T_P, 0x01), "Verification")

# RequestState::import: pat's state format (tokens/state.rs: version 1,
# shape 4, type 0xC07E), then r and tc below n (zero allowed) and T a
# point; the key id is not checked here but by Client::finalize. Length
# first, then version, shape, type, and the body as it reads it.
add("type_c07e_request_state", "valid: the vector's state", ath_state, "Ok")
for n in [0, 1, 2, 4, 68, 101, 132, 134, 266]:
    add("type_c07e_request_state", f"{n} bytes", (ath_state * 2)[:n], "InvalidLength(State)")
add("type_c07e_request_state", "zeroed (a spent state)", bytes(len(ath_state)), "UnknownStateVersion(0)")
add("type_c07e_request_state", "version 2", b"\x02" + ath_state[1:], "UnknownStateVersion(2)")
add("type_c07e_request_state", "shape 1 (one token of the other types)", ath_state[:1] + b"\x01" + ath_state[2:],
    "InvalidValue(State)")
add("type_c07e_request_state", "type 0xDA7B", ath_state[:2] + b"\xda\x7b" + ath_state[4:],
    "WrongTokenType { expected: 49278, found: 55931 }")
add("type_c07e_request_state", "r = n", with_scalar(ath_state, 4, N), "InvalidScalar")
add("type_c07e_request_state", "tc = 2^256 - 1", with_scalar(ath_state, 36, 2**256 - 1), "InvalidScalar")
add("type_c07e_request_state", "tc = n + 1", with_scalar(ath_state, 36, N + 1), "InvalidScalar")
bad_elements("type_c07e_request_state", ath_state, 68, "T", which=[0, 2, 3, 4, 6])

# The token key: Client::from_token_key, which checks the key's proof.
K_E, K_AZ = 99, 131
add("type_c07e_token_key", "valid: the vectors' key and proof", ath_key, "Ok")
add("type_c07e_token_key", "valid: C_x replaced by C_y (the proof covers Z only, §4.1; another key id)",
    ath_pk[:33] + ath_pk[66:99] + ath_pk[66:99] + ath_proof, "Ok")
for n in [0, 1, 99, 162, 164, 326]:
    add("type_c07e_token_key", f"{n} bytes", (ath_key * 2)[:n], "InvalidLength(TokenKey)")
bad_elements("type_c07e_token_key", ath_key, 0, "Z", which=[2, 3])
bad_elements("type_c07e_token_key", ath_key, 33, "C_x", which=[0, 3])
bad_elements("type_c07e_token_key", ath_key, 66, "C_y", which=[2, 4])
add("type_c07e_token_key", "e = n", with_scalar(ath_key, K_E, N), "InvalidScalar")
add("type_c07e_token_key", "a_z = 2^256 - 1", with_scalar(ath_key, K_AZ, 2**256 - 1), "InvalidScalar")
for at, name in [(K_E, "e"), (K_AZ, "a_z")]:
    assert scalar_flip_ok(ath_key, at)
    add("type_c07e_token_key", f"one bit flipped in {name}", flip(ath_key, at + 16), "Verification")
add("type_c07e_token_key", "Z and C_x swapped", ath_pk[33:66] + ath_pk[:33] + ath_pk[66:] + ath_proof, "Verification")
add("type_c07e_token_key", "Z negated", flip(ath_key, 0, 0x01), "Verification")

# PrivateKey::from_bytes: every scalar below n, y and z not zero, x and r_x not both zero.
add("athm_private_key", "valid: the vectors' key", ath_sk, "Ok")
add("athm_private_key", "valid: x = 0, r_y = 0", with_scalar(with_scalar(ath_sk, 0, 0), 128, 0), "Ok")
for n in [0, 1, 32, 96, 159]:
    add("athm_private_key", f"{n} bytes", ath_sk[:n], "Truncated")
for n in [161, 320]:
    add("athm_private_key", f"{n} bytes", (ath_sk * 2)[:n], "TrailingBytes")
add("athm_private_key", "y = 0", with_scalar(ath_sk, 32, 0), "InvalidKey")
add("athm_private_key", "z = 0", with_scalar(ath_sk, 64, 0), "InvalidKey")
add("athm_private_key", "y = z = 0", with_scalar(with_scalar(ath_sk, 32, 0), 64, 0), "InvalidKey")
add("athm_private_key", "x = r_x = 0 (C_x the identity)", with_scalar(with_scalar(ath_sk, 0, 0), 96, 0), "InvalidKey")
add("athm_private_key", "valid: r_x = 0", with_scalar(ath_sk, 96, 0), "Ok")
for at, name, value, what in [(0, "x", N, "n"), (32, "y", N, "n (zero, unreduced)"), (64, "z", N + 1, "n + 1"),
                              (96, "r_x", 2**256 - 1, "2^256 - 1"), (128, "r_y", N, "n")]:
    add("athm_private_key", f"{name} = {what}", with_scalar(ath_sk, at, value), "InvalidScalar")

# PublicKey::from_bytes: three points.
add("athm_public_key", "valid: the vectors' key", ath_pk, "Ok")
truncations("athm_public_key", ath_pk, [0, 1, 33, 66, len(ath_pk) - 1])
trailing("athm_public_key", ath_pk)
bad_elements("athm_public_key", ath_pk, 0, "Z", which=[0, 2, 3])
bad_elements("athm_public_key", ath_pk, 33, "C_x", which=[1, 4])
bad_elements("athm_public_key", ath_pk, 66, "C_y", which=[2, 6])

# PublicKeyProof::from_bytes: two scalars below n (zero allowed; the proof is
# not checked here).
add("athm_key_proof", "valid: the vectors' proof", ath_proof, "Ok")
add("athm_key_proof", "valid: e = a_z = 0", bytes(64), "Ok")
truncations("athm_key_proof", ath_proof, [0, 1, 31, 32, 63])
trailing("athm_key_proof", ath_proof)
for at, name, value, what in [(0, "e", N, "n"), (0, "e", N + 1, "n + 1"), (0, "e", 2**256 - 1, "2^256 - 1"),
                              (32, "a_z", N, "n"), (32, "a_z", 2**256 - 1, "2^256 - 1")]:
    add("athm_key_proof", f"{name} = {what}", with_scalar(ath_proof, at, value), "InvalidScalar")

# --- ACT(ristretto255) and type 0xE5AD (draft-schlesinger-cfrg-act-01,
# draft-schlesinger-privacypass-act-01)
# The valid messages are the appendix vectors (tests/vectors/act/, L = 8, one
# run, ctx = 0). Every message is a deterministic-CBOR map keyed 1..n in
# order whose values are 32-byte byte strings (head 58 20): elements (RFC 9496
# encodings, 32 bytes) and scalars (32 bytes little-endian); the spend proof
# also holds definite-length arrays (Com[8], gamma0[8], z[8][2]). The decoders
# accept only that one encoding (src/crypto/act/cbor.rs): the input ending
# early is Truncated, bytes after the message TrailingBytes, a head of the
# expected major type with another length, count or form (non-minimal,
# indefinite) InvalidLength(Message), any other unexpected head byte (major
# type) or key byte InvalidValue(Message); a scalar not below q is
# InvalidScalar, an element that is not a canonical encoding of a point, or
# is the identity, InvalidElement. Zero scalars and any other element decode
# (the "Ok" entries). The check kinds run with the vectors' key and states
# (tests/negative.rs, `act_check`): the issuer's check of a request
# (act_issue) and of a spend proof (act_spend_proof_verify, refunding 10),
# the client's check of a response (act_finalize) and of a refund
# (act_refund_finalize).
actv = json.load(open(root / "tests" / "vectors" / "act" / "draft-schlesinger-cfrg-act-01.json"))[0]
assert actv["L"] == 8 and actv["ctx"] == "00" * 32
act = lambda name: h(actv[name + "_cbor"])
IL, IV = "InvalidLength(Message)", "InvalidValue(Message)"
Q = 2**252 + 27742317777372353535851937790883648493  # the order of ristretto255
RP = 2**255 - 19
RD = -121665 * pow(121666, -1, RP) % RP
SQRT_M1 = pow(2, (RP - 1) // 4, RP)


def r_neg(x):
    return x % RP & 1


def sqrt_ratio_m1(u, v):  # RFC 9496 §4.2
    r = u * pow(v, 3, RP) * pow(u * pow(v, 7, RP), (RP - 5) // 8, RP) % RP
    check = v * r * r % RP
    correct, flipped, flipped_i = check == u % RP, check == -u % RP, check == -u * SQRT_M1 % RP
    if flipped or flipped_i:
        r = r * SQRT_M1 % RP
    return correct or flipped, RP - r if r_neg(r) else r


def ristretto_refusal(b):
    """Why RFC 9496 §4.3.1 Decode refuses b (None if it decodes; s = 0, the
    identity, decodes there and is refused by pat's decoder only)."""
    s = int.from_bytes(b, "little")
    if s >= RP:
        return "non-canonical"
    if r_neg(s):
        return "negative"
    ss = s * s % RP
    u1, u2 = (1 - ss) % RP, (1 + ss) % RP
    v = (-(RD * u1 * u1) - u2 * u2) % RP
    was_square, invsqrt = sqrt_ratio_m1(1, v * u2 * u2 % RP)
    den_x = invsqrt * u2 % RP
    den_y = invsqrt * den_x * v % RP
    x = 2 * s * den_x % RP
    x = RP - x if r_neg(x) else x
    y = u1 * den_y % RP
    if not was_square:
        return "non-square"
    if r_neg(x * y % RP):
        return "negative xy"
    if y == 0:
        return "y = 0"
    return None


def act_element_ok(b):
    return b != bytes(32) and ristretto_refusal(b) is None


G255 = h("e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76")  # the generator (RFC 9496 A.1)
assert act_element_ok(G255)
# Bad elements, each InvalidElement; the RFC 9496 A.2 ones checked for their reason here.
ACT_BAD_ELEMENTS = [
    ("the identity (all zero)", bytes(32)),
    ("s = p (non-canonical)", h("ed" + "ff" * 30 + "7f")),
    ("s = 2^255 - 1 (non-canonical)", h("ff" * 31 + "7f")),
    ("high bit set (s = 2^255)", bytes(31) + b"\x80"),
    ("all 0xff", b"\xff" * 32),
    ("negative s = 1", b"\x01" + bytes(31)),
    ("non-square x^2 (RFC 9496 A.2)", h("26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371")),
    ("negative xy (RFC 9496 A.2)", h("3eb858e78f5a7254d8c9731174a94f76755fd3941c0ac93735c07ba14579630e")),
    ("s = -1, which gives y = 0 (RFC 9496 A.2)", h("ec" + "ff" * 30 + "7f")),
]
assert [ristretto_refusal(e) for _, e in ACT_BAD_ELEMENTS] == [
    None, "non-canonical", "non-canonical", "non-canonical", "non-canonical", "negative", "non-square", "negative xy",
    "y = 0"]
# Scalars not below q, each InvalidScalar.
ACT_BAD_SCALARS = [("q", Q), ("q + 1", Q + 1), ("2^256 - 1", 2**256 - 1), ("2^255", 2**255), ("2^253", 2**253)]


def sle(v):
    return v.to_bytes(32, "little")


def act_fields(m):
    """The 32-byte values of a flat map {1: v1, ..., n: vn}."""
    n = m[0] & 0x1f
    assert m[0] == 0xa0 | n and len(m) == 1 + 35 * n
    for i in range(n):
        assert m[1 + 35 * i:4 + 35 * i] == bytes([i + 1, 0x58, 0x20])
    return [m[4 + 35 * i:36 + 35 * i] for i in range(n)]


def act_flat(values):
    return bytes([0xa0 | len(values)]) + b"".join(bytes([i + 1]) + b"\x58\x20" + v for i, v in enumerate(values))


def with_field(m, i, value):
    fields = act_fields(m)
    fields[i] = value
    return act_flat(fields)


def act_structure(kind, m, what):
    """Truncations, trailing bytes and every head, key and length defect of
    a flat map (n ≥ 2 fields) kind; the valid message first."""
    n = len(act_fields(m))
    last = 1 + 35 * (n - 1)  # the last key
    add(kind, f"valid: the vector's {what}", m, "Ok")
    truncations(kind, m, [0, 1, 2, 3, 4, 20, 35, 36, 37, last + 3, len(m) - 1])
    trailing(kind, m)
    add(kind, "the message twice", m + m, "TrailingBytes")
    add(kind, "a CBOR break byte (ff) after the map", m + b"\xff", "TrailingBytes")
    # The map head.
    add(kind, f"map of {n - 1} pairs (the last field dropped)", bytes([0xa0 | (n - 1)]) + m[1:last], IL)
    add(kind, f"map head of {n - 1} pairs over {n}", bytes([0xa0 | (n - 1)]) + m[1:], IL)
    add(kind, f"map of {n + 1} pairs (a field keyed {n + 1} added)",
        bytes([0xa0 | (n + 1)]) + m[1:] + bytes([n + 1]) + b"\x58\x20" + bytes(32), IL)
    add(kind, f"non-minimal map head b8 {n:02x}", b"\xb8" + bytes([n]) + m[1:], IL)
    add(kind, "indefinite-length map (bf ... ff)", b"\xbf" + m[1:] + b"\xff", IL)
    add(kind, "empty map (a0)", b"\xa0", IL)
    add(kind, f"array head {0x80 | n:02x} in place of the map head", bytes([0x80 | n]) + m[1:], IV)
    add(kind, "self-described CBOR tag 55799 (d9 d9 f7) in front", b"\xd9\xd9\xf7" + m, IV)
    add(kind, "the map inside a byte string", bytes([0x58, len(m)]) + m, IV)
    # Keys.
    add(kind, "first key 0", m[:1] + b"\x00" + m[2:], IV)
    add(kind, "fields 1 and 2 exchanged (keys 2, 1)", m[:1] + m[36:71] + m[1:36] + m[71:], IV)
    add(kind, "key 1 twice", m[:36] + b"\x01" + m[37:], IV)
    add(kind, "key 1 in the non-minimal form 18 01", m[:1] + b"\x18\x01" + m[2:], IV)
    add(kind, "key -1 (20)", m[:1] + b"\x20" + m[2:], IV)
    add(kind, "text key \"1\" (61 31)", m[:1] + b"\x61\x31" + m[2:], IV)
    add(kind, f"last key {n + 1}", m[:last] + bytes([n + 1]) + m[last + 1:], IV)
    add(kind, f"last key {n} in the non-minimal form 18 {n:02x}", m[:last] + bytes([0x18, n]) + m[last + 1:], IV)
    # The byte strings' heads.
    v1 = m[4:36]
    add(kind, "field 1 a 31-byte string (58 1f)", m[:2] + b"\x58\x1f" + v1[:31] + m[36:], IL)
    add(kind, "field 1 a 33-byte string (58 21)", m[:2] + b"\x58\x21" + v1 + b"\x00" + m[36:], IL)
    add(kind, "field 1 with the non-minimal length 59 00 20", m[:2] + b"\x59\x00\x20" + m[4:], IL)
    add(kind, "field 1 an indefinite-length string (5f 58 20 ... ff)", m[:2] + b"\x5f" + m[2:36] + b"\xff" + m[36:], IL)
    add(kind, "field 1 an empty string (40)", m[:2] + b"\x40" + m[36:], IL)
    add(kind, "field 1 a 23-byte string in the short form (57)", m[:2] + b"\x57" + v1[:23] + m[36:], IL)
    add(kind, "field 1 a text string (78 20)", m[:2] + b"\x78\x20" + m[4:], IV)
    add(kind, "field 1 the integer 0", m[:2] + b"\x00" + m[36:], IV)
    add(kind, "field 1 an array of two 16-byte strings", m[:2] + b"\x82\x50" + v1[:16] + b"\x50" + v1[16:] + m[36:], IV)
    add(kind, f"field {n} with the non-minimal length 59 00 20", m[:last + 1] + b"\x59\x00\x20" + m[last + 3:], IL)
    add(kind, f"field {n} a 31-byte string (58 1f)", m[:last + 1] + b"\x58\x1f" + m[last + 3:-1], IL)


_rot = [0]


def act_values(kind, m, names, types, all_elements=False):
    """Per field: every element field refused as the identity and two other
    bad encodings (all of them with all_elements), every scalar field as q
    and one more value not below q; the first scalar also unreduced (v + q).
    Decodable replacements (zero, q - 1, the generator) are "Ok"."""
    fields = act_fields(m)
    first_scalar = True
    for i, (name, t) in enumerate(zip(names, types)):
        if t == "E":
            bad = ACT_BAD_ELEMENTS if all_elements else [ACT_BAD_ELEMENTS[0]] + [
                ACT_BAD_ELEMENTS[1 + (_rot[0] + j) % (len(ACT_BAD_ELEMENTS) - 1)] for j in (0, 1)]
            _rot[0] += 2
            for what, e in bad:
                add(kind, f"{name}: {what}", with_field(m, i, e), "InvalidElement")
            add(kind, f"valid: {name} = the generator", with_field(m, i, G255), "Ok")
        else:
            what, value = ACT_BAD_SCALARS[1 + _rot[0] % (len(ACT_BAD_SCALARS) - 1)]
            _rot[0] += 1
            add(kind, f"{name} = q", with_field(m, i, sle(Q)), "InvalidScalar")
            add(kind, f"{name} = {what}", with_field(m, i, sle(value)), "InvalidScalar")
            if first_scalar:
                v = int.from_bytes(fields[i], "little")
                assert v + Q < 2**256
                add(kind, f"{name} unreduced ({name} + q)", with_field(m, i, sle(v + Q)), "InvalidScalar")
                add(kind, f"valid: {name} = 0", with_field(m, i, bytes(32)), "Ok")
                first_scalar = False
    i = max(j for j, t in enumerate(types) if t == "S")
    add(kind, f"valid: {names[i]} = q - 1", with_field(m, i, sle(Q - 1)), "Ok")


def act_flip(m, i):
    """Bit 0 of the middle byte of flat field i flipped."""
    return flip(m, 4 + 35 * i + 16)


def act_flip_error(m, i, otherwise="Verification"):
    """The error of act_flip for an element field: InvalidElement when the
    new encoding does not decode."""
    return otherwise if act_element_ok(act_flip(m, i)[4 + 35 * i:36 + 35 * i]) else "InvalidElement"


def act_scalar_flip(m, i):
    new = act_flip(m, i)
    assert int.from_bytes(new[4 + 35 * i:36 + 35 * i], "little") < Q
    return new


act_sk, act_pk, act_pre, act_req = act("sk"), act("pk"), act("preissuance"), act("issuance_request")
act_resp, act_cred, act_ref = act("issuance_response"), act("credit_token"), act("refund")
act_sp, act_prer = act("spend_proof"), act("prerefund")
act_w = act_pk[2:]
assert act_pk[:2] == b"\x58\x20" and act_fields(act_sk)[1] == act_w and act_element_ok(act_w)

# IssuanceRequest {1: K, 2: gamma, 3: k_bar, 4: r_bar}.
REQ_NAMES = ["K", "gamma", "k_bar", "r_bar"]
act_structure("act_request", act_req, "issuance request")
act_values("act_request", act_req, REQ_NAMES, "ESSS", all_elements=True)
# PrivateKey::issue (100 credits, ctx 0): the request's proof.
add("act_issue", "valid: the vector's request", act_req, "Ok")
add("act_issue", "one bit flipped in K", act_flip(act_req, 0), act_flip_error(act_req, 0))
for i in (1, 2, 3):
    add("act_issue", f"one bit flipped in {REQ_NAMES[i]}", act_scalar_flip(act_req, i), "Verification")
add("act_issue", "K = the generator", with_field(act_req, 0, G255), "Verification")
add("act_issue", "gamma = 0", with_field(act_req, 1, bytes(32)), "Verification")
_f = act_fields(act_req)
add("act_issue", "k_bar and r_bar exchanged", act_flat([_f[0], _f[1], _f[3], _f[2]]), "Verification")

# IssuanceResponse {1: A, 2: e, 3: gamma, 4: z, 5: c, 6: ctx}.
RESP_NAMES = ["A", "e", "gamma", "z", "c", "ctx"]
act_structure("act_response", act_resp, "issuance response")
act_values("act_response", act_resp, RESP_NAMES, "ESSSSS")
add("act_response", "valid: c = 2^8 (L is checked by its user, not the decoder)", with_field(act_resp, 4, sle(256)),
    "Ok")
# PreIssuance::to_credit_token with the vector's state and key: c below 2^8
# (ValueTooLarge), then the issuer's proof.
add("act_finalize", "valid: the vector's response", act_resp, "Ok")
add("act_finalize", "one bit flipped in A", act_flip(act_resp, 0), act_flip_error(act_resp, 0))
for i in (1, 2, 3, 5):
    add("act_finalize", f"one bit flipped in {RESP_NAMES[i]}", act_scalar_flip(act_resp, i), "Verification")
add("act_finalize", "A = the generator", with_field(act_resp, 0, G255), "Verification")
add("act_finalize", "c = 101", with_field(act_resp, 4, sle(101)), "Verification")
add("act_finalize", "c = 0", with_field(act_resp, 4, sle(0)), "Verification")
add("act_finalize", "c = 2^8", with_field(act_resp, 4, sle(256)), "ValueTooLarge")
add("act_finalize", "c = q - 1", with_field(act_resp, 4, sle(Q - 1)), "ValueTooLarge")
add("act_finalize", "ctx = 1", with_field(act_resp, 5, sle(1)), "Verification")
_f = act_fields(act_resp)
add("act_finalize", "e and z exchanged", act_flat([_f[0], _f[3], _f[2], _f[1], _f[4], _f[5]]), "Verification")
add("act_finalize", "the credit token (same schema: A, e, k, r, c, ctx)", act_cred, "Verification")

# Refund {1: A*, 2: e*, 3: gamma, 4: z, 5: t}.
REF_NAMES = ["A*", "e*", "gamma", "z", "t"]
act_structure("act_refund", act_ref, "refund")
act_values("act_refund", act_ref, REF_NAMES, "ESSSS")
add("act_refund", "valid: t = 2^8 (L is checked by its user)", with_field(act_ref, 4, sle(256)), "Ok")
# PreRefund::to_credit_token with the vector's state, spend proof and key:
# the refund's proof, then t and m + t below 2^8.
add("act_refund_finalize", "valid: the vector's refund", act_ref, "Ok")
add("act_refund_finalize", "one bit flipped in A*", act_flip(act_ref, 0), act_flip_error(act_ref, 0))
for i in (1, 2, 3, 4):
    add("act_refund_finalize", f"one bit flipped in {REF_NAMES[i]}", act_scalar_flip(act_ref, i), "Verification")
add("act_refund_finalize", "A* = the generator", with_field(act_ref, 0, G255), "Verification")
for t, what in [(11, "11"), (0, "0"), (256, "2^8 (the proof is checked first)"), (Q - 1, "q - 1")]:
    add("act_refund_finalize", f"t = {what}", with_field(act_ref, 4, sle(t)), "Verification")
_f = act_fields(act_ref)
add("act_refund_finalize", "e* and z exchanged", act_flat([_f[0], _f[3], _f[2], _f[1], _f[4]]), "Verification")

# CreditToken {1: A, 2: e, 3: k, 4: r, 5: c, 6: ctx} (the client's credential).
act_structure("act_credit_token", act_cred, "credit token")
act_values("act_credit_token", act_cred, ["A", "e", "k", "r", "c", "ctx"], "ESSSSS")
add("act_credit_token", "valid: the refund's token", act("refund_token"), "Ok")
add("act_credit_token", "valid: c = 2^200 (L is checked by its user)", with_field(act_cred, 4, sle(2**200)), "Ok")

# PreIssuance {1: r, 2: k} and PreRefund {1: r*, 2: k*, 3: m, 4: ctx} (client states).
act_structure("act_pre_issuance", act_pre, "pre-issuance")
act_values("act_pre_issuance", act_pre, ["r", "k"], "SS")
add("act_pre_issuance", "a 3-field map (the pre-refund's first fields)", act_flat(act_fields(act_prer)[:3]), IL)
act_structure("act_pre_refund", act_prer, "pre-refund")
act_values("act_pre_refund", act_prer, ["r*", "k*", "m", "ctx"], "SSSS")
add("act_pre_refund", "valid: m = 2^200 (L is checked by its user)", with_field(act_prer, 2, sle(2**200)), "Ok")

# PrivateKey {1: x, 2: W}: x below q, W an element, W = x*G (InvalidKey).
act_structure("act_private_key", act_sk, "private key")
add("act_private_key", "valid: x = 1, W = the generator", act_flat([sle(1), G255]), "Ok")
for what, value in ACT_BAD_SCALARS:
    add("act_private_key", f"x = {what}", with_field(act_sk, 0, sle(value)), "InvalidScalar")
_x = int.from_bytes(act_fields(act_sk)[0], "little")
add("act_private_key", "x unreduced (x + q)", with_field(act_sk, 0, sle(_x + Q)), "InvalidScalar")
for what, e in ACT_BAD_ELEMENTS[:5]:
    add("act_private_key", f"W: {what}", with_field(act_sk, 1, e), "InvalidElement")
add("act_private_key", "x = 0 (W = x*G would be the identity)", with_field(act_sk, 0, bytes(32)), "InvalidKey")
add("act_private_key", "x = 1 with the vector's W", with_field(act_sk, 0, sle(1)), "InvalidKey")
add("act_private_key", "x = q - 1", with_field(act_sk, 0, sle(Q - 1)), "InvalidKey")
add("act_private_key", "one bit flipped in x", act_scalar_flip(act_sk, 0), "InvalidKey")
add("act_private_key", "W = the generator", with_field(act_sk, 1, G255), "InvalidKey")
add("act_private_key", "one bit flipped in W", act_flip(act_sk, 1), act_flip_error(act_sk, 1, "InvalidKey"))

# PublicKey: the byte string W (58 20 W, 34 bytes).
add("act_public_key", "valid: the vector's key", act_pk, "Ok")
add("act_public_key", "valid: the generator", b"\x58\x20" + G255, "Ok")
truncations("act_public_key", act_pk, [0, 1, 2, 3, 33])
trailing("act_public_key", act_pk)
add("act_public_key", "the key twice", act_pk + act_pk, "TrailingBytes")
add("act_public_key", "a 31-byte string (58 1f)", b"\x58\x1f" + act_w[:31], IL)
add("act_public_key", "a 33-byte string (58 21)", b"\x58\x21" + act_w + b"\x00", IL)
add("act_public_key", "the non-minimal length 59 00 20", b"\x59\x00\x20" + act_w, IL)
add("act_public_key", "an indefinite-length string (5f 58 20 W ff)", b"\x5f" + act_pk + b"\xff", IL)
assert act_w[0] >> 5 == 2  # W's first byte, 0x4a, reads as the head of a 10-byte string
add("act_public_key", "the raw 32 bytes of W (no head)", act_w, IL)
add("act_public_key", "a text string (78 20)", b"\x78\x20" + act_w, IV)
add("act_public_key", "a map {1: W} (the private key's shape)", b"\xa1\x01" + act_pk, IV)
add("act_public_key", "an array [W]", b"\x81" + act_pk, IV)
add("act_public_key", "self-described CBOR tag 55799 in front", b"\xd9\xd9\xf7" + act_pk, IV)
for what, e in ACT_BAD_ELEMENTS:
    add("act_public_key", f"W: {what}", b"\x58\x20" + e, "InvalidElement")

# SpendProof<8> {1: k, 2: s, 3: A', 4: B_bar, 5: [Com x 8], 6: gamma, 7: e_bar,
# 8: r2_bar, 9: r3_bar, 10: c_bar, 11: r_bar, 12: w00, 13: w01,
# 14: [gamma0 x 8], 15: [[z0, z1] x 8], 16: k_bar, 17: s_bar, 18: ctx}
# (1628 bytes). Unlike the flat maps, its decoder decodes each value as it
# reads it.
SP = {}  # a value's name -> the offset of its 32 bytes; "#name" -> the offset of a key or array head
_pos = 1


def _sp_bstr(name):
    global _pos
    assert act_sp[_pos:_pos + 2] == b"\x58\x20"
    SP[name] = _pos + 2
    _pos += 34


def _sp_key(key, name=None):
    global _pos
    assert act_sp[_pos] == key
    SP["#" + str(key)] = _pos
    _pos += 1
    if name:
        _sp_bstr(name)


def _sp_array(name, n):
    global _pos
    assert act_sp[_pos] == 0x80 | n
    SP["#" + name] = _pos
    _pos += 1


assert act_sp[0] == 0xb2
for _k, _n in [(1, "k"), (2, "s"), (3, "A'"), (4, "B_bar")]:
    _sp_key(_k, _n)
_sp_key(5)
_sp_array("Com", 8)
for _j in range(8):
    _sp_bstr(f"Com[{_j}]")
for _k, _n in [(6, "gamma"), (7, "e_bar"), (8, "r2_bar"), (9, "r3_bar"), (10, "c_bar"), (11, "r_bar"), (12, "w00"),
               (13, "w01")]:
    _sp_key(_k, _n)
_sp_key(14)
_sp_array("gamma0", 8)
for _j in range(8):
    _sp_bstr(f"gamma0[{_j}]")
_sp_key(15)
_sp_array("z", 8)
for _j in range(8):
    _sp_array(f"z[{_j}]", 2)
    _sp_bstr(f"z[{_j}][0]")
    _sp_bstr(f"z[{_j}][1]")
for _k, _n in [(16, "k_bar"), (17, "s_bar"), (18, "ctx")]:
    _sp_key(_k, _n)
assert _pos == len(act_sp) == 1628
SP_ELEMENTS = ["A'", "B_bar"] + [f"Com[{j}]" for j in range(8)]


def sp_get(name):
    return act_sp[SP[name]:SP[name] + 32]


def sp_with(name, value, m=act_sp):
    at = SP[name]
    return m[:at] + value + m[at + 32:]


def sp_head(at, new, old_len=1, m=act_sp):
    return m[:at] + new + m[at + old_len:]


def sp_flip(name):
    new = flip(act_sp, SP[name] + 16)
    if name in SP_ELEMENTS:
        return new, "Verification" if act_element_ok(new[SP[name]:SP[name] + 32]) else "InvalidElement"
    assert int.from_bytes(new[SP[name]:SP[name] + 32], "little") < Q
    return new, "Verification"


K = "act_spend_proof"
add(K, "valid: the vector's spend proof", act_sp, "Ok")
add(K, "valid: k = 0 (decodes; the proof then fails)", sp_with("k", bytes(32)), "Ok")
add(K, "valid: s = 2^200 (L is checked by its user)", sp_with("s", sle(2**200)), "Ok")
add(K, "valid: Com[3] = the generator", sp_with("Com[3]", G255), "Ok")
add(K, "valid: z[7][1] = q - 1", sp_with("z[7][1]", sle(Q - 1)), "Ok")
truncations(K, act_sp, [0, 1, 2, 3, 4, SP["#5"], SP["#Com"], SP["#Com"] + 1, SP["Com[0]"], SP["#6"], SP["#gamma0"],
                        SP["#z"], SP["#z[0]"], SP["z[0][1]"], SP["#16"], len(act_sp) - 1])
trailing(K, act_sp)
add(K, "the proof twice", act_sp + act_sp, "TrailingBytes")
add(K, "map of 17 pairs (ctx dropped)", b"\xb1" + act_sp[1:SP["#18"]], IL)
add(K, "map head of 19 pairs over 18", b"\xb3" + act_sp[1:], IL)
add(K, "non-minimal map head b8 12", b"\xb8\x12" + act_sp[1:], IL)
add(K, "indefinite-length map (bf ... ff)", b"\xbf" + act_sp[1:] + b"\xff", IL)
add(K, "array head 92 in place of the map head", b"\x92" + act_sp[1:], IV)
add(K, "self-described CBOR tag 55799 in front", b"\xd9\xd9\xf7" + act_sp, IV)
add(K, "key 5 missing (the Com array right after B_bar)", act_sp[:SP["#5"]] + act_sp[SP["#Com"]:], IV)
add(K, "key 5 replaced by 6", sp_head(SP["#5"], b"\x06"), IV)
add(K, "fields 6 and 7 exchanged (keys 7, 6)",
    act_sp[:SP["#6"]] + act_sp[SP["#7"]:SP["#8"]] + act_sp[SP["#6"]:SP["#7"]] + act_sp[SP["#8"]:], IV)
add(K, "key 18 in the non-minimal form 18 12", sp_head(SP["#18"], b"\x18\x12"), IV)
add(K, "key 16 replaced by 17", sp_head(SP["#16"], b"\x11"), IV)
add(K, "Com: array of 7 (the head of an L = 7 proof)", sp_head(SP["#Com"], b"\x87"), IL)
add(K, "Com: array of 9", sp_head(SP["#Com"], b"\x89"), IL)
add(K, "Com: 7 commitments under an array head of 7", sp_head(SP["#Com"], b"\x87", 1 + 34), IL)
add(K, "Com: non-minimal array head 98 08", sp_head(SP["#Com"], b"\x98\x08"), IL)
add(K, "Com: indefinite-length array (9f ... ff)",
    act_sp[:SP["#Com"]] + b"\x9f" + act_sp[SP["#Com"] + 1:SP["#6"]] + b"\xff" + act_sp[SP["#6"]:], IL)
add(K, "Com: a map head a8", sp_head(SP["#Com"], b"\xa8"), IV)
add(K, "Com: one 272-byte string (59 01 10) of the 8 encodings",
    act_sp[:SP["#Com"]] + b"\x59\x01\x10" + b"".join(act_sp[SP[f"Com[{j}]"]:SP[f"Com[{j}]"] + 32] for j in range(8))
    + act_sp[SP["#6"]:], IV)
add(K, "gamma0: array of 7", sp_head(SP["#gamma0"], b"\x87"), IL)
add(K, "z: one flat array of 16 strings (90)", sp_head(SP["#z"], b"\x90"), IL)
add(K, "z[0]: array of 3", sp_head(SP["#z[0]"], b"\x83"), IL)
add(K, "z[7]: array of 1", sp_head(SP["#z[7]"], b"\x81"), IL)
add(K, "z[0]: the pair without its array head", sp_head(SP["#z[0]"], b""), IV)
add(K, "z[4]: a map head a2", sp_head(SP["#z[4]"], b"\xa2"), IV)
add(K, "Com[0]: a 31-byte string (58 1f)", sp_head(SP["Com[0]"] - 2, b"\x58\x1f" + sp_get("Com[0]")[:31], 34), IL)
add(K, "gamma0[7]: the non-minimal length 59 00 20", sp_head(SP["gamma0[7]"] - 2, b"\x59\x00\x20", 2), IL)
add(K, "z[3][1]: an indefinite-length string (5f ... ff)",
    act_sp[:SP["z[3][1]"] - 2] + b"\x5f" + act_sp[SP["z[3][1]"] - 2:SP["z[3][1]"] + 32] + b"\xff"
    + act_sp[SP["z[3][1]"] + 32:], IL)
add(K, "A': a text string (78 20)", sp_head(SP["A'"] - 2, b"\x78\x20", 2), IV)
add(K, "ctx: the integer 0", act_sp[:SP["ctx"] - 2] + b"\x00", IV)
for name, (what, e) in zip(SP_ELEMENTS, [ACT_BAD_ELEMENTS[i] for i in [0, 6, 0, 7, 1, 8, 5, 2, 3, 4]]):
    add(K, f"{name}: {what}", sp_with(name, e), "InvalidElement")
for name, (what, value) in zip(["k", "s", "gamma", "e_bar", "r2_bar", "r3_bar", "c_bar", "r_bar", "w00", "w01",
                                "gamma0[0]", "gamma0[7]", "z[0][0]", "z[5][1]", "k_bar", "s_bar", "ctx"],
                               ACT_BAD_SCALARS * 4):
    add(K, f"{name} = {what}", sp_with(name, sle(value)), "InvalidScalar")
add(K, "k unreduced (k + q)", sp_with("k", sle(int.from_bytes(sp_get("k"), "little") + Q)), "InvalidScalar")

# PrivateKey::refund (t = 10) with the vector's key: the charge s below 2^8
# (ValueTooLarge), then the spend proof.
K = "act_spend_proof_verify"
add(K, "valid: the vector's spend proof", act_sp, "Ok")
for name in ["k", "A'", "B_bar", "Com[0]", "Com[7]", "gamma", "e_bar", "r2_bar", "r3_bar", "c_bar", "r_bar", "w00",
             "w01", "gamma0[0]", "gamma0[7]", "z[0][0]", "z[7][1]", "k_bar", "s_bar", "ctx"]:
    new, error = sp_flip(name)
    add(K, f"one bit flipped in {name}", new, error)
for s, error in [(31, "Verification"), (0, "Verification"), (256, "ValueTooLarge"), (Q - 1, "ValueTooLarge")]:
    add(K, f"s = {s if s < Q - 1 else 'q - 1'}", sp_with("s", sle(s)), error)
for a, b in [("Com[0]", "Com[1]"), ("z[0][0]", "z[0][1]"), ("w00", "w01")]:
    add(K, f"{a} and {b} exchanged", sp_with(b, sp_get(a), sp_with(a, sp_get(b))), "Verification")
add(K, "Com[2] = the generator", sp_with("Com[2]", G255), "Verification")

# --- Type 0xE5AD: the vectors' messages framed as Privacy Pass messages.
# TokenRequest = 0xE5AD ‖ last byte of the key id ‖ IssuanceRequest[141];
# TokenResponse = IssuanceResponse[211]; Token = 0xE5AD ‖ challenge digest
# ‖ key id ‖ SpendProof<8>[1628]; key id = SHA-256(W). The fixed-length
# fields are cut from the input before their CBOR is decoded: a message
# short of its length is Truncated even where the CBOR inside is also
# malformed. The issue, finalize, verify and token-key kinds run with the
# vectors' key, the vector's client state with ctx 0, and the challenge
# `ech` (tests/negative.rs, `act_check`).
E5AD = 0xE5AD
E5AD_WRONG_TYPES = [0x0001, 0x0002, 0x0005, 0xDA7A, 0xE5AC, 0xADE5, 0xC07E]
act_kid = hashlib.sha256(act_w).digest()

# ActChallenge: the ArcChallenge shape under 0xE5AD.
K = "type_e5ad_challenge"
ech = arc_challenge(b"issuer.example", bytes(range(32)), b"origin.example", bytes(range(100, 132)), tt=E5AD)
add(K, "valid: 32-byte redemption and credential contexts", ech, "Ok")
add(K, "valid: empty contexts", arc_challenge(b"issuer.example", b"", b"", b"", tt=E5AD), "Ok")
truncations(K, ech, [0, 1, 2, 3, 4, 20, 52, 86, 87, 88, len(ech) - 1])
trailing(K, ech)
retyped(K, ech, E5AD, E5AD_WRONG_TYPES + [0x0000])
for n in [1, 31, 33]:
    add(K, f"credential_context of {n} bytes", arc_challenge(b"issuer.example", b"", b"o", bytes(n), tt=E5AD),
        "InvalidLength(CredentialContext)")
add(K, "credential_context length 255", arc_challenge(b"i", b"", b"", bytes(255), tt=E5AD),
    "InvalidLength(CredentialContext)")
add(K, "credential_context length 32 over 31 bytes", arc_challenge(b"i", b"", b"", bytes(31), cctx_len=32, tt=E5AD),
    "Truncated")
add(K, "redemption_context of 16 bytes", arc_challenge(b"i", bytes(16), b"", bytes(32), tt=E5AD),
    "InvalidLength(RedemptionContext)")
add(K, "empty issuer_name", arc_challenge(b"", b"", b"", bytes(32), tt=E5AD), "InvalidLength(IssuerName)")
add(K, "the RFC 9577 challenge alone (no credential_context)", ech[:86], "Truncated")

# TokenRequest.
K = "type_e5ad_request"
ereq = struct.pack(">H", E5AD) + act_kid[-1:] + act_req
assert len(ereq) == 144
add(K, "valid: the vector's request", ereq, "Ok")
truncations(K, ereq, [0, 1, 2, 3, 4, 5, 6, 7, 40, len(ereq) - 1])
trailing(K, ereq)
add(K, "two requests", ereq + ereq, "TrailingBytes")
retyped(K, ereq, E5AD, E5AD_WRONG_TYPES)
add(K, "the bare CBOR (no type, no key id)", act_req, f"WrongTokenType {{ expected: {E5AD}, found: {0xa401} }}")
add(K, "a 2-byte length before the CBOR", ereq[:3] + struct.pack(">H", len(act_req)) + act_req, IV)
add(K, "map head a3", ereq[:3] + b"\xa3" + act_req[1:], IL)
add(K, "first key 0", ereq[:4] + b"\x00" + act_req[2:], IV)
add(K, "K a 31-byte string (the request one byte short)", ereq[:5] + b"\x58\x1f" + act_req[4:35] + act_req[36:],
    "Truncated")
add(K, "K with the non-minimal length 59 00 20 (one byte long)", ereq[:5] + b"\x59\x00\x20" + act_req[4:], IL)
add(K, "K a text string (78 20)", ereq[:5] + b"\x78\x20" + act_req[4:], IV)
add(K, "K: the identity", ereq[:3] + with_field(act_req, 0, bytes(32)), "InvalidElement")
add(K, "K: s = p", ereq[:3] + with_field(act_req, 0, ACT_BAD_ELEMENTS[1][1]), "InvalidElement")
add(K, "gamma = q", ereq[:3] + with_field(act_req, 1, sle(Q)), "InvalidScalar")
add(K, "r_bar = 2^256 - 1", ereq[:3] + with_field(act_req, 3, sle(2**256 - 1)), "InvalidScalar")
# Issuer::issue (100 credits, for ech): the truncated key id, then the proof.
K = "type_e5ad_issue"
add(K, "valid: the vector's request", ereq, "Ok")
for kid in [act_kid[-1] ^ 0xFF, 0x00, (act_kid[-1] + 1) % 256]:
    add(K, f"truncated key id 0x{kid:02x} of another key", ereq[:2] + bytes([kid]) + act_req, "KeyIdMismatch")
add(K, "one bit flipped in gamma", ereq[:3] + act_scalar_flip(act_req, 1), "Verification")
add(K, "one bit flipped in r_bar", ereq[:3] + act_scalar_flip(act_req, 3), "Verification")
add(K, "K = the generator", ereq[:3] + with_field(act_req, 0, G255), "Verification")

# TokenResponse.
K = "type_e5ad_response"
add(K, "valid: the vector's response", act_resp, "Ok")
add(K, "valid: the credit token's CBOR (same schema)", act_cred, "Ok")
truncations(K, act_resp, [0, 1, 2, 3, 4, 36, 105, len(act_resp) - 1])
trailing(K, act_resp)
add(K, "two responses", act_resp + act_resp, "TrailingBytes")
add(K, "the refund (176 bytes)", act_ref, "Truncated")
add(K, "map head a5", b"\xa5" + act_resp[1:], IL)
add(K, "last key 7", act_resp[:176] + b"\x07" + act_resp[177:], IV)
add(K, "ctx with the non-minimal length 59 00 20 (one byte long)", act_resp[:177] + b"\x59\x00\x20" + act_resp[179:],
    IL)
add(K, "ctx a 31-byte string (one byte short)", act_resp[:177] + b"\x58\x1f" + act_resp[179:-1], "Truncated")
add(K, "A: the identity", with_field(act_resp, 0, bytes(32)), "InvalidElement")
add(K, "c = q", with_field(act_resp, 4, sle(Q)), "InvalidScalar")
# Client::finalize with the vector's state (ctx 0): the context, then c, then the proof.
K = "type_e5ad_finalize"
add(K, "valid: the vector's response", act_resp, "Ok")
add(K, "ctx = 1", with_field(act_resp, 5, sle(1)), "ChallengeMismatch")
add(K, "ctx = q - 1", with_field(act_resp, 5, sle(Q - 1)), "ChallengeMismatch")
add(K, "ctx = 1 and c = 2^8 (the context is checked first)",
    with_field(with_field(act_resp, 5, sle(1)), 4, sle(256)), "ChallengeMismatch")
add(K, "c = 2^8", with_field(act_resp, 4, sle(256)), "ValueTooLarge")
add(K, "c = 101", with_field(act_resp, 4, sle(101)), "Verification")
add(K, "one bit flipped in A", act_flip(act_resp, 0), act_flip_error(act_resp, 0))
add(K, "one bit flipped in gamma", act_scalar_flip(act_resp, 2), "Verification")
add(K, "one bit flipped in z", act_scalar_flip(act_resp, 3), "Verification")
add(K, "the credit token's CBOR", act_cred, "Verification")

# Token<8>.
K = "type_e5ad_token"
T_SP = 2 + 32 + 32
etok = struct.pack(">H", E5AD) + hashlib.sha256(ech).digest() + act_kid + act_sp
assert len(etok) == T_SP + 1628


def etok_with(proof, head=etok[:T_SP]):
    return head + proof


add(K, "valid: the vector's spend proof for ech", etok, "Ok")
truncations(K, etok, [0, 1, 2, 3, 33, 34, 35, 65, 66, 67, 500, len(etok) - 1])
trailing(K, etok)
add(K, "two tokens", etok + etok, "TrailingBytes")
retyped(K, etok, E5AD, E5AD_WRONG_TYPES)
add(K, "map head b1", etok_with(b"\xb1" + act_sp[1:]), IL)
add(K, "Com: array of 7", etok_with(sp_head(SP["#Com"], b"\x87")), IL)
add(K, "Com: array of 9", etok_with(sp_head(SP["#Com"], b"\x89")), IL)
add(K, "key 18 in the non-minimal form 18 12 (one byte long)", etok_with(sp_head(SP["#18"], b"\x18\x12")), IV)
add(K, "ctx a 31-byte string (one byte short)", etok_with(act_sp[:SP["ctx"] - 1] + b"\x1f" + act_sp[SP["ctx"]:-1]),
    "Truncated")
add(K, "Com[2]: the identity", etok_with(sp_with("Com[2]", bytes(32))), "InvalidElement")
add(K, "A': negative xy", etok_with(sp_with("A'", ACT_BAD_ELEMENTS[7][1])), "InvalidElement")
add(K, "k = 2^256 - 1", etok_with(sp_with("k", sle(2**256 - 1))), "InvalidScalar")
add(K, "gamma0[3] = q", etok_with(sp_with("gamma0[3]", sle(Q))), "InvalidScalar")
# Issuer::verify (cost 30, refund 10, for ech): the digest, the key id, the
# charge against the cost, then the context. The vector's ctx (0) is no
# challenge's context, so the valid proof stops at the context check.
K = "type_e5ad_verify"
other_head = etok[:2] + hashlib.sha256(arc_challenge(b"issuer.example", b"", b"origin.example", b"", tt=E5AD)).digest()
add(K, "the vector's proof (ctx 0, not ech's context)", etok, "ChallengeMismatch")
add(K, "the digest of another challenge", etok_with(act_sp, other_head + act_kid), "ChallengeMismatch")
add(K, "another key id", flip(etok, 34 + 31), "KeyIdMismatch")
add(K, "another key id and another digest (the digest is checked first)",
    etok_with(act_sp, other_head + flip(act_kid, 31)), "ChallengeMismatch")
add(K, "charge 31 (cost 30)", etok_with(sp_with("s", sle(31))), "InvalidValue(Token)")
add(K, "charge 29", etok_with(sp_with("s", sle(29))), "InvalidValue(Token)")
add(K, "charge 0", etok_with(sp_with("s", sle(0))), "InvalidValue(Token)")
add(K, "charge 2^8", etok_with(sp_with("s", sle(256))), "ValueTooLarge")
add(K, "charge 31 and another key id (the key id is checked first)", flip(etok_with(sp_with("s", sle(31))), 34 + 31),
    "KeyIdMismatch")

# RequestState::from_bytes: PreIssuance[71] ‖ IssuanceRequest[141] ‖ ctx[32].
K = "type_e5ad_request_state"
est = act_pre + act_req + bytes(32)
assert len(est) == 244
add(K, "valid: the vector's state, ctx 0", est, "Ok")
add(K, "valid: ctx of 0xff bytes (not decoded as a scalar)", act_pre + act_req + b"\xff" * 32, "Ok")
for n in [0, 1, 71, 212, 243, 245, 488]:
    add(K, f"{n} bytes", (est * 2)[:n], "InvalidLength(State)")
add(K, "the request before the pre-issuance", act_req + act_pre + bytes(32), IL)
add(K, "pre-issuance map head a3", b"\xa3" + est[1:], IL)
add(K, "pre-issuance key 2 replaced by 3", est[:36] + b"\x03" + est[37:], IV)
add(K, "r = q", with_field(act_pre, 0, sle(Q)) + act_req + bytes(32), "InvalidScalar")
add(K, "k = 2^256 - 1", with_field(act_pre, 1, sle(2**256 - 1)) + act_req + bytes(32), "InvalidScalar")
add(K, "request map head a5", act_pre + b"\xa5" + act_req[1:] + bytes(32), IL)
add(K, "K: the identity", act_pre + with_field(act_req, 0, bytes(32)) + bytes(32), "InvalidElement")
add(K, "k_bar = q", act_pre + with_field(act_req, 2, sle(Q)) + bytes(32), "InvalidScalar")

# Client::from_token_key: the raw 32-byte W.
K = "type_e5ad_token_key"
add(K, "valid: the vector's key", act_w, "Ok")
add(K, "valid: the generator", G255, "Ok")
for n in [0, 1, 31]:
    add(K, f"{n} bytes", act_w[:n], "Truncated")
for n in [33, 64]:
    add(K, f"{n} bytes", (act_w * 2)[:n], "TrailingBytes")
add(K, "the CBOR byte string (58 20 W)", act_pk, "TrailingBytes")
for what, e in ACT_BAD_ELEMENTS:
    add(K, what, e, "InvalidElement")


out.parent.mkdir(parents=True, exist_ok=True)
with open(out, "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
kinds = {}
for c in cases:
    kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
print(f"{len(cases)} messages: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
