#!/usr/bin/env python3
"""Writes tests/vectors/negative/malformed.json: malformed messages of every
kind, built from the valid vectors by one deliberate defect each, with the
error the library must answer (the `Debug` form of `pat::Error`).

The expected error of each entry follows from the wire format and the error
contract documented in the crate (a read past the end is `Truncated`, bytes
after a complete message are `TrailingBytes`, a length prefix outside its
bounds is `InvalidLength(field)`, ...): it is written here by hand, never by
running the library. Deterministic: re-running gives the same file."""
import base64
import json
import pathlib
import struct

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

out.parent.mkdir(parents=True, exist_ok=True)
with open(out, "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
kinds = {}
for c in cases:
    kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
print(f"{len(cases)} malformed messages: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
