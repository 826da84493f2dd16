#!/usr/bin/env python3
"""An independent check of pat's type 0xDA7B vectors, written from the
formulas of the specifications and nothing else: Python 3's standard library
(hashlib, json, integers), no package, no code of pat or of another OPRF
implementation.

- P-384 (SEC 2 §2.5.1): affine point arithmetic over the prime field, the
  compressed SEC1 encoding.
- RFC 9380: expand_message_xmd (§5.3.1) with SHA-384, hash_to_field (§5.2),
  the simplified SWU map (§6.6.2, straight-line form), so
  hash_to_curve for P384_XMD:SHA-384_SSWU_RO_ (§8.3) and, over the group
  order, HashToScalar.
- RFC 9497, suite P384-SHA384 in the partially oblivious mode (0x02):
  DeriveKeyPair (§3.2.1), Blind, BlindEvaluate, Finalize and Evaluate
  (§3.3.3), and the DLEQ proof (§2.2: GenerateProof with the given
  proof_random_scalar, VerifyProof, ComputeComposites).
- draft-ietf-privacypass-public-metadata-issuance §5 (type 0xDA7B): the
  token_input, ExtendedTokenRequest, TokenResponse and Token, with the
  Extensions encoding (length prefix included) as the POPRF info.

It first reproduces RFC 9497 Appendix A.4.3 (the three P384-SHA384 POPRF
vectors, tests/vectors/rfc/rfc9497-voprf.json), then every field of every
case of the 0xDA7B files given on the command line (by default
tests/vectors/pat/type-da7b-issuance-test-vectors.json). One line per
vector; the exit status is 1 on any mismatch.

    python3 tools/poprf_da7b.py [FILE...]
"""
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RFC_FILE = ROOT / "tests" / "vectors" / "rfc" / "rfc9497-voprf.json"
DEFAULT_FILES = [ROOT / "tests" / "vectors" / "pat" / "type-da7b-issuance-test-vectors.json"]

# --- P-384 (SEC 2 §2.5.1; RFC 9380 §8.3 for Z) ------------------------------
P = 2**384 - 2**128 - 2**96 + 2**32 - 1
A = P - 3
B = 0xB3312FA7E23EE7E4988E056BE3F82D19181D9C6EFE8141120314088F5013875AC656398D8A2ED19D2A85C8EDD3EC2AEF
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973
G = (0xAA87CA22BE8B05378EB1C71EF320AD746E1D3B628BA79B9859F741E082542A385502F25DBF55296C3A545E3872760AB7,
     0x3617DE4A96262C6F5D9E98BF9292DC29F8F41DBD289A147CE9DA3113B5F0B8C00A60B1CE1D7E819D7A431D7C90EA0E5F)
Z_SSWU = P - 12
NE, NS, NH = 49, 48, 48
INFINITY = None  # the identity element


def on_curve(pt):
    x, y = pt
    return (y * y - (x * x * x + A * x + B)) % P == 0


def add(p1, p2):
    """Affine addition: the chord through p1 and p2 (the tangent when equal)."""
    if p1 is INFINITY:
        return p2
    if p2 is INFINITY:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2:
        if (y1 + y2) % P == 0:
            return INFINITY  # p2 = -p1
        lam = (3 * x1 * x1 + A) * pow(2 * y1, -1, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return (x3, (lam * (x1 - x3) - y1) % P)


def mul(k, pt):
    """k·pt, double and add from the most significant bit (variable time:
    these are public test values)."""
    acc = INFINITY
    for bit in bin(k % N)[2:]:
        acc = add(acc, acc)
        if bit == "1":
            acc = add(acc, pt)
    return acc


def serialize_element(pt):
    """SEC1 compressed: 0x02 | 0x03 by the parity of y, then x (RFC 9497 §4.4)."""
    if pt is INFINITY:
        raise ValueError("SerializeElement of the identity")
    x, y = pt
    return bytes([2 + (y & 1)]) + x.to_bytes(48, "big")


def deserialize_element(data):
    if len(data) != NE or data[0] not in (2, 3):
        raise ValueError("not a compressed P-384 point")
    x = int.from_bytes(data[1:], "big")
    if x >= P:
        raise ValueError("x is not a field element")
    y = sqrt(x * x * x + A * x + B)
    if y is None:
        raise ValueError("x is not on the curve")
    if y & 1 != data[0] & 1:
        y = P - y
    return (x, y)


def serialize_scalar(k):
    return k.to_bytes(NS, "big")


def deserialize_scalar(data):
    k = int.from_bytes(data, "big")
    if len(data) != NS or k >= N:
        raise ValueError("not a canonical scalar")
    return k


def sqrt(v):
    """The square root for p = 3 mod 4 (RFC 9380 Appendix I.1), or None."""
    r = pow(v % P, (P + 1) // 4, P)
    return r if r * r % P == v % P else None


# --- RFC 9380 -----------------------------------------------------------------
def i2osp(value, length):
    return value.to_bytes(length, "big")


def expand_message_xmd(msg, dst, len_in_bytes):
    """§5.3.1 with SHA-384 (b_in_bytes 48, s_in_bytes 128)."""
    b_in_bytes, s_in_bytes = 48, 128
    ell = -(-len_in_bytes // b_in_bytes)
    if ell > 255 or len_in_bytes > 65535 or len(dst) > 255:
        raise ValueError("expand_message_xmd: bad lengths")
    dst_prime = dst + i2osp(len(dst), 1)
    msg_prime = bytes(s_in_bytes) + msg + i2osp(len_in_bytes, 2) + i2osp(0, 1) + dst_prime
    b0 = hashlib.sha384(msg_prime).digest()
    b = [hashlib.sha384(b0 + i2osp(1, 1) + dst_prime).digest()]
    for i in range(2, ell + 1):
        xored = bytes(x ^ y for x, y in zip(b0, b[-1]))
        b.append(hashlib.sha384(xored + i2osp(i, 1) + dst_prime).digest())
    return b"".join(b)[:len_in_bytes]


def hash_to_field(msg, count, dst, modulus):
    """§5.2 with m = 1 and L = ceil((ceil(log2(p)) + k) / 8) = 72 for both the
    P-384 field and its group order (384 bits, k = 192)."""
    length = 72
    uniform = expand_message_xmd(msg, dst, count * length)
    return [int.from_bytes(uniform[i * length:(i + 1) * length], "big") % modulus for i in range(count)]


def map_to_curve_sswu(u):
    """§6.6.2, the straight-line steps 1-9."""
    z = Z_SSWU
    tv1 = z * z * pow(u, 4, P) + z * u * u
    tv1 = pow(tv1 % P, -1, P) if tv1 % P else 0  # inv0
    x1 = (-B * pow(A, -1, P)) * (1 + tv1) % P
    if tv1 == 0:
        x1 = B * pow(z * A, -1, P) % P
    gx1 = (x1 ** 3 + A * x1 + B) % P
    x2 = z * u * u * x1 % P
    gx2 = (x2 ** 3 + A * x2 + B) % P
    y1 = sqrt(gx1)
    x, y = (x1, y1) if y1 is not None else (x2, sqrt(gx2))
    if u % 2 != y % 2:  # sgn0 for m = 1
        y = P - y
    return (x, y)


def hash_to_curve(msg, dst):
    """§3 encoding hash_to_curve (random oracle); P-384's cofactor is 1."""
    u0, u1 = hash_to_field(msg, 2, dst, P)
    return add(map_to_curve_sswu(u0), map_to_curve_sswu(u1))


# --- RFC 9497, P384-SHA384, modePOPRF ----------------------------------------
CONTEXT = b"OPRFV1-" + i2osp(2, 1) + b"-P384-SHA384"


def hash_to_group(msg):
    return hash_to_curve(msg, b"HashToGroup-" + CONTEXT)


def hash_to_scalar(msg, dst=None):
    return hash_to_field(msg, 1, dst or b"HashToScalar-" + CONTEXT, N)[0]


def len_prefixed(data):
    return i2osp(len(data), 2) + data


def derive_key_pair(seed, info):
    """§3.2.1."""
    derive_input = seed + len_prefixed(info)
    for counter in range(256):
        sk = hash_to_scalar(derive_input + i2osp(counter, 1), b"DeriveKeyPair" + CONTEXT)
        if sk != 0:
            return sk, mul(sk, G)
    raise ValueError("DeriveKeyPairError")


def info_scalar(info):
    """m = HashToScalar(framedInfo), framedInfo = "Info" || I2OSP(len(info), 2) || info."""
    return hash_to_scalar(b"Info" + len_prefixed(info))


def composites(k, b, cs, ds):
    """ComputeCompositesFast (k given) or ComputeComposites (k None), §2.2.1/§2.2.2."""
    bm = serialize_element(b)
    seed_dst = b"Seed-" + CONTEXT
    seed = hashlib.sha384(len_prefixed(bm) + len_prefixed(seed_dst)).digest()
    m, z = INFINITY, INFINITY
    for i, (c, d) in enumerate(zip(cs, ds)):
        transcript = (len_prefixed(seed) + i2osp(i, 2) + len_prefixed(serialize_element(c))
                      + len_prefixed(serialize_element(d)) + b"Composite")
        di = hash_to_scalar(transcript)
        m = add(mul(di, c), m)
        if k is None:
            z = add(mul(di, d), z)
    if k is not None:
        z = mul(k, m)
    return m, z


def challenge_scalar(b, m, z, t2, t3):
    transcript = b"".join(len_prefixed(serialize_element(e)) for e in (b, m, z, t2, t3)) + b"Challenge"
    return hash_to_scalar(transcript)


def generate_proof(k, a, b, cs, ds, r):
    """§2.2.1, with r the proof_random_scalar."""
    m, z = composites(k, b, cs, ds)
    t2, t3 = mul(r, a), mul(r, m)
    c = challenge_scalar(b, m, z, t2, t3)
    s = (r - c * k) % N
    return serialize_scalar(c) + serialize_scalar(s)


def verify_proof(a, b, cs, ds, proof):
    """§2.2.2."""
    c, s = deserialize_scalar(proof[:NS]), deserialize_scalar(proof[NS:])
    m, z = composites(None, b, cs, ds)
    t2 = add(mul(s, a), mul(c, b))
    t3 = add(mul(s, m), mul(c, z))
    return challenge_scalar(b, m, z, t2, t3) == c


def blind(input_, info, pk, r):
    """Blind(input, info, pkS) with the blind r: (blinded element, tweaked key)."""
    tweaked = add(mul(info_scalar(info), G), pk)
    if tweaked is INFINITY:
        raise ValueError("InvalidInputError")
    element = hash_to_group(input_)
    if element is INFINITY:
        raise ValueError("InvalidInputError")
    return mul(r, element), tweaked


def blind_evaluate(sk, blinded, info, r):
    """BlindEvaluate(skS, blindedElements, info) with GenerateProof's r."""
    t = (sk + info_scalar(info)) % N
    if t == 0:
        raise ValueError("InverseError")
    evaluated = [mul(pow(t, -1, N), e) for e in blinded]
    proof = generate_proof(t, G, mul(t, G), evaluated, blinded, r)
    return evaluated, proof


def finalize_hash(input_, info, unblinded):
    return hashlib.sha384(len_prefixed(input_) + len_prefixed(info) + len_prefixed(serialize_element(unblinded))
                          + b"Finalize").digest()


def finalize(inputs, blinds, evaluated, blinded, proof, info, tweaked):
    if not verify_proof(G, tweaked, evaluated, blinded, proof):
        raise ValueError("VerifyError")
    return [finalize_hash(x, info, mul(pow(r, -1, N), e)) for x, r, e in zip(inputs, blinds, evaluated)]


def evaluate(sk, input_, info):
    element = hash_to_group(input_)
    if element is INFINITY:
        raise ValueError("InvalidInputError")
    t = (sk + info_scalar(info)) % N
    if t == 0:
        raise ValueError("InverseError")
    return finalize_hash(input_, info, mul(pow(t, -1, N), element))


# --- Checks -------------------------------------------------------------------
class Mismatch(Exception):
    pass


def expect(field, computed, expected):
    if computed != expected:
        raise Mismatch(f"{field}: computed {computed.hex()}, the file has {expected.hex()}")


def check_rfc_vectors():
    """RFC 9497 Appendix A.4.3: every field of the three P384-SHA384 POPRF vectors."""
    suites = json.load(open(RFC_FILE))["suites"]
    block = next(s for s in suites if s["suite"] == "P384-SHA384" and s["mode"] == 2)
    h = bytes.fromhex
    sk, pk = derive_key_pair(h(block["seed"]), h(block["key_info"]))
    results = []
    for v in block["vectors"]:
        try:
            expect("skSm", serialize_scalar(sk), h(block["skSm"]))
            expect("pkSm", serialize_element(pk), h(block["pkSm"]))
            inputs = [h(x) for x in v["input"]]
            blinds = [deserialize_scalar(h(x)) for x in v["blind"]]
            info = h(v["info"])
            blinded, tweaked = [], None
            for i, (x, r) in enumerate(zip(inputs, blinds)):
                element, tweaked = blind(x, info, pk, r)
                expect(f"blinded_element[{i}]", serialize_element(element), h(v["blinded_element"][i]))
                blinded.append(element)
            r = deserialize_scalar(h(v["proof_random_scalar"]))
            evaluated, proof = blind_evaluate(sk, blinded, info, r)
            for i, e in enumerate(evaluated):
                expect(f"evaluation_element[{i}]", serialize_element(e), h(v["evaluation_element"][i]))
            expect("proof", proof, h(v["proof"]))
            outputs = finalize(inputs, blinds, evaluated, blinded, proof, info, tweaked)
            for i, (x, out) in enumerate(zip(inputs, outputs)):
                expect(f"output[{i}] (Finalize)", out, h(v["output"][i]))
                expect(f"output[{i}] (Evaluate)", evaluate(sk, x, info), h(v["output"][i]))
            results.append((f"RFC 9497 {v['rfc_section']} ({v['title']})", None))
        except (Mismatch, ValueError) as e:
            results.append((f"RFC 9497 {v['rfc_section']} ({v['title']})", str(e)))
    return results


def parse_challenge(data):
    """TokenChallenge (RFC 9577 §2.1): the token type and that the structure is whole."""
    pos = 2
    issuer_len = int.from_bytes(data[pos:pos + 2], "big")
    pos += 2 + issuer_len
    pos += 1 + data[pos]
    origin_len = int.from_bytes(data[pos:pos + 2], "big")
    pos += 2 + origin_len
    if pos != len(data) or issuer_len == 0:
        raise ValueError("token_challenge: not one TokenChallenge")
    return int.from_bytes(data[:2], "big")


def parse_extensions(data):
    """Extensions (draft-ietf-privacypass-auth-scheme-extensions): a 2-byte
    length, then entries type(2) ‖ length(2) ‖ data, types non-decreasing."""
    if len(data) < 2 or int.from_bytes(data[:2], "big") != len(data) - 2:
        raise ValueError("extensions: the length prefix does not cover the rest")
    pos, last, entries = 2, -1, []
    while pos < len(data):
        if pos + 4 > len(data):
            raise ValueError("extensions: entry header cut")
        ty, n = int.from_bytes(data[pos:pos + 2], "big"), int.from_bytes(data[pos + 2:pos + 4], "big")
        if pos + 4 + n > len(data) or ty < last:
            raise ValueError("extensions: entry past the end or unsorted")
        entries.append((ty, data[pos + 4:pos + 4 + n]))
        pos, last = pos + 4 + n, ty
    return entries


def check_da7b_case(case):
    """Every field of one 0xDA7B case, recomputed from its inputs: seed (when
    present), skS, nonce, blind, token_challenge, extensions and
    proof_random_scalar."""
    h = lambda k: bytes.fromhex(case[k])
    extensions = h("extensions")
    entries = parse_extensions(extensions)
    challenge = h("token_challenge")
    if parse_challenge(challenge) != 0xDA7B:
        raise ValueError("token_challenge: not of type 0xDA7B")
    if "seed" in case:
        sk, _ = derive_key_pair(h("seed"), b"PrivacyPass-TypeDA7B")
        expect("skS (DeriveKeyPair(seed, \"PrivacyPass-TypeDA7B\"))", serialize_scalar(sk), h("skS"))
    sk = deserialize_scalar(h("skS"))
    if sk == 0:
        raise ValueError("skS is zero")
    pk = mul(sk, G)
    expect("pkS", serialize_element(pk), h("pkS"))
    key_id = hashlib.sha256(serialize_element(pk)).digest()
    expect("token_key_id", key_id, h("token_key_id"))

    # Client (draft §5.1): token_input, Blind, ExtendedTokenRequest.
    nonce = h("nonce")
    if len(nonce) != 32:
        raise ValueError("nonce: not 32 bytes")
    token_input = i2osp(0xDA7B, 2) + nonce + hashlib.sha256(challenge).digest() + key_id
    r = deserialize_scalar(h("blind"))
    blinded, tweaked = blind(token_input, extensions, pk, r)
    request = i2osp(0xDA7B, 2) + key_id[-1:] + serialize_element(blinded) + extensions
    expect("token_request", request, h("token_request"))

    # Issuer (§5.2): BlindEvaluate with the request's extensions as info.
    received = h("token_request")
    received_blinded = deserialize_element(received[3:3 + NE])
    if received[3 + NE:] != extensions:
        raise Mismatch("token_request: its extensions are not the case's")
    proof_r = deserialize_scalar(h("proof_random_scalar"))
    evaluated, proof = blind_evaluate(sk, [received_blinded], received[3 + NE:], proof_r)
    expect("token_response", serialize_element(evaluated[0]) + proof, h("token_response"))

    # Client (§5.3): Finalize on the file's response, the token.
    response = h("token_response")
    file_evaluated = deserialize_element(response[:NE])
    [authenticator] = finalize([token_input], [r], [file_evaluated], [blinded], response[NE:], extensions, tweaked)
    expect("token", token_input + authenticator, h("token"))

    # Issuer as origin (§5.4): Evaluate over the file's token.
    token = h("token")
    if len(token) != 98 + NH:
        raise Mismatch("token: not 146 bytes")
    expect("token (Evaluate at the origin)", evaluate(sk, token[:98], extensions), token[98:])
    return len(entries)


def main(paths):
    failed = 0
    for name, problem in check_rfc_vectors():
        print(f"{name}: {'ok' if problem is None else 'MISMATCH ' + problem}")
        failed += problem is not None
    for path in paths:
        cases = json.load(open(path))
        try:
            shown = pathlib.Path(path).resolve().relative_to(ROOT)
        except ValueError:
            shown = path
        for i, case in enumerate(cases):
            try:
                n = check_da7b_case(case)
                print(f"{shown} case {i} ({n} extension{'' if n == 1 else 's'}, {len(case['extensions']) // 2} bytes): ok")
            except (Mismatch, ValueError, KeyError) as e:
                print(f"{shown} case {i}: MISMATCH {e}")
                failed += 1
        if not cases:
            print(f"{shown}: no cases")
            failed += 1
    if failed:
        print(f"{failed} mismatch(es)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or DEFAULT_FILES))
