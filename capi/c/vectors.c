/*
 * The C API from C: pat-go's vectors of token types 0x0001, 0x0002 and
 * 0x0005, privacypass-ts's of 0xDA7A, pat's own of 0xDA7B (checked by
 * tools/poprf_da7b.py), the ARC draft's (0xE5AC), the ATHM reference's
 * (0xC07E), ACT's appendix run (0xE5AD), pat-go's amortized batches of
 * 0x0001 and 0x0005, and the generic batches of pat-go and the privacypass
 * crate byte for byte (and the type-2 and 0xDA7A tokens verified as an origin
 * verifies them), and the behaviour of the API around them (headers, directory,
 * status codes, the callback, refused calls).
 *
 *   pat-capi-test FILE...
 *
 * Prints `api: N passed, M failed`, then `FILE: N passed, M failed` per
 * vector file, and exits 0 only when nothing failed and every file had
 * cases. Built against a library with the hazmat feature (-DPAT_HAZMAT):
 * the vectors need the deterministic request functions.
 */
#define _DEFAULT_SOURCE /* getrandom() */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "json.h"
#include "pat.h"

static int passed, failed;

#define CHECK(cond, ...)                         \
    do {                                         \
        if (cond) {                              \
            passed++;                            \
        } else {                                 \
            failed++;                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                 \
            printf("\n");                        \
        }                                        \
    } while (0)

static bool all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0) return false;
    }
    return true;
}

/* Bytes after each output buffer that the library must leave alone. */
#define GUARD 16

static bool guard_intact(const uint8_t *g) {
    for (size_t i = 0; i < GUARD; i++) {
        if (g[i] != 0xA5) return false;
    }
    return true;
}

/* Padded base64url (RFC 4648 §5), written here so that the header checks
 * do not take the library's word for its own encoding. */
static size_t b64url(const uint8_t *in, size_t n, char *out) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n) v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n) v |= in[i + 2];
        out[o++] = a[v >> 18 & 63];
        out[o++] = a[v >> 12 & 63];
        out[o++] = i + 1 < n ? a[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? a[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) { fclose(f); return NULL; }
    long size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) { fclose(f); return NULL; }
    char *text = malloc((size_t)size + 1);
    if (text != NULL && fread(text, 1, (size_t)size, f) != (size_t)size) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text != NULL) text[size] = '\0';
    return text;
}

/* ---- randomness callbacks ------------------------------------------------ */

/* The OS generator: what a host client would pass. */
static int32_t os_rng(void *ctx, uint8_t *buf, size_t len) {
    (void)ctx;
    while (len > 0) {
        ssize_t n = getrandom(buf, len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Fails with the code `ctx` points to. */
static int32_t failing_rng(void *ctx, uint8_t *buf, size_t len) {
    (void)buf;
    (void)len;
    return *(const int32_t *)ctx;
}

/* ---- one vector case ------------------------------------------------------ */

typedef struct {
    uint16_t type;
    size_t request_len, response_len, token_len, state_len, authorization_size;
} kind;

static const kind KINDS[] = {
    {1, PAT_TYPE1_REQUEST_LEN, PAT_TYPE1_RESPONSE_LEN, PAT_TYPE1_TOKEN_LEN, PAT_TYPE1_STATE_LEN,
     PAT_TYPE1_AUTHORIZATION_SIZE},
    {2, PAT_TYPE2_REQUEST_LEN, PAT_TYPE2_RESPONSE_LEN, PAT_TYPE2_TOKEN_LEN, PAT_TYPE2_STATE_LEN,
     PAT_TYPE2_AUTHORIZATION_SIZE},
    {5, PAT_TYPE5_REQUEST_LEN, PAT_TYPE5_RESPONSE_LEN, PAT_TYPE5_TOKEN_LEN, PAT_TYPE5_STATE_LEN,
     PAT_TYPE5_AUTHORIZATION_SIZE},
};

static const kind *kind_of(uint16_t type) {
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        if (KINDS[i].type == type) return &KINDS[i];
    }
    return NULL;
}

static int32_t finalize(uint16_t type, const uint8_t *key, size_t key_len, uint8_t *state, size_t state_len,
                        const uint8_t *resp, size_t resp_len, uint8_t *token, size_t token_cap) {
    switch (type) {
    case 1: return pat_type1_finalize(key, key_len, state, state_len, resp, resp_len, token, token_cap);
    case 2: return pat_type2_finalize(key, key_len, state, state_len, resp, resp_len, token, token_cap);
    default: return pat_type5_finalize(key, key_len, state, state_len, resp, resp_len, token, token_cap);
    }
}

typedef struct {
    uint8_t *pk, *challenge, *nonce, *blind, *salt, *request, *response, *token, *extensions;
    size_t pk_len, challenge_len, nonce_len, blind_len, salt_len, request_len, response_len, token_len, extensions_len;
} vector;

static void vector_free(vector *v) {
    free(v->pk); free(v->challenge); free(v->nonce); free(v->blind);
    free(v->salt); free(v->request); free(v->response); free(v->token); free(v->extensions);
}

/* The types with public metadata, 0xDA7A (partially blind RSA) and 0xDA7B
 * (POPRF P-384): the request carries an Extensions list, and finalize takes
 * it again. Their finalize functions share one signature. */
typedef struct {
    uint16_t type;
    size_t fixed_len, state_len, token_len;
    int32_t (*request_len)(size_t extensions_len);
    int32_t (*authorization_size)(size_t extensions_len);
    /* The deterministic request from the case's nonce, blind (and salt). */
    int32_t (*request_with)(const vector *v, uint8_t *request, size_t request_len, uint8_t *state);
    int32_t (*finalize)(const uint8_t *key, size_t key_len, uint8_t *state, size_t state_len,
                        const uint8_t *extensions, size_t extensions_len, const uint8_t *response,
                        size_t response_len, uint8_t *token, size_t token_cap);
} extended_kind;

static int32_t da7a_request_with(const vector *v, uint8_t *request, size_t request_len, uint8_t *state) {
    uint8_t blind[PAT_TYPE2_BLIND_LEN] = {0};
    if (v->salt == NULL || v->blind_len > sizeof blind) return -PAT_E_INVALID_LENGTH;
    memcpy(blind + sizeof blind - v->blind_len, v->blind, v->blind_len); /* big-endian, left-padded */
    return pat_typeda7a_request_with(v->pk, v->pk_len, v->challenge, v->challenge_len, v->extensions,
                                     v->extensions_len, v->nonce, v->nonce_len, v->salt, v->salt_len, blind,
                                     sizeof blind, request, request_len, state, PAT_TYPEDA7A_STATE_LEN);
}

static int32_t da7b_request_with(const vector *v, uint8_t *request, size_t request_len, uint8_t *state) {
    return pat_typeda7b_request_with(v->pk, v->pk_len, v->challenge, v->challenge_len, v->extensions,
                                     v->extensions_len, v->nonce, v->nonce_len, v->blind, v->blind_len, request,
                                     request_len, state, PAT_TYPEDA7B_STATE_LEN);
}

static const extended_kind EXTENDED_KINDS[] = {
    {0xDA7A, PAT_TYPEDA7A_REQUEST_FIXED_LEN, PAT_TYPEDA7A_STATE_LEN, PAT_TYPEDA7A_TOKEN_LEN,
     pat_typeda7a_request_len, pat_typeda7a_authorization_size, da7a_request_with, pat_typeda7a_finalize},
    {0xDA7B, PAT_TYPEDA7B_REQUEST_FIXED_LEN, PAT_TYPEDA7B_STATE_LEN, PAT_TYPEDA7B_TOKEN_LEN,
     pat_typeda7b_request_len, pat_typeda7b_authorization_size, da7b_request_with, pat_typeda7b_finalize},
};

/* A case of a type with public metadata: the request carries the vector's
 * extensions, finalize takes them again (others are refused with the state
 * kept), and the Authorization value carries them too. */
static bool run_case_extended(const extended_kind *k, const vector *v, const char *where) {
    int before = failed;
    enum { MAX_EXT = 512 };
    if (v->extensions == NULL || v->extensions_len > MAX_EXT) {
        CHECK(false, "%s: a 0x%04X case needs extensions (at most %d bytes)", where, k->type, MAX_EXT);
        return false;
    }
    int32_t request_len = k->request_len(v->extensions_len);
    int32_t auth_size = k->authorization_size(v->extensions_len);
    CHECK(request_len == (int32_t)(k->fixed_len + v->extensions_len) && auth_size > 0,
          "%s: request length %d, Authorization size %d", where, request_len, auth_size);
    if (request_len != (int32_t)(k->fixed_len + v->extensions_len) || auth_size <= 0) return false;
    /* 0xDA7A's sizes are the larger. */
    uint8_t request[PAT_TYPEDA7A_REQUEST_FIXED_LEN + MAX_EXT + GUARD], state[PAT_TYPEDA7A_STATE_LEN + GUARD];
    uint8_t token[PAT_TYPEDA7A_TOKEN_LEN + GUARD];
    char auth[2048 + GUARD];
    if ((size_t)auth_size > 2048 || k->state_len > PAT_TYPEDA7A_STATE_LEN || k->token_len > PAT_TYPEDA7A_TOKEN_LEN ||
        k->fixed_len > PAT_TYPEDA7A_REQUEST_FIXED_LEN)
        return false;
    memset(request + request_len, 0xA5, GUARD);
    memset(state + k->state_len, 0xA5, GUARD);
    memset(token + k->token_len, 0xA5, GUARD);
    memset(auth + auth_size, 0xA5, GUARD);
    int32_t rc = k->request_with(v, request, (size_t)request_len, state);
    CHECK(rc == request_len && (size_t)rc == v->request_len && memcmp(request, v->request, v->request_len) == 0,
          "%s: token_request differs (%d)", where, rc);

    /* Other extensions at finalize: refused, the state kept for the right ones. */
    static const uint8_t other[] = {0, 4, 0, 1, 0, 0}, empty[] = {0, 0};
    bool same_as_other = v->extensions_len == sizeof other && memcmp(v->extensions, other, sizeof other) == 0;
    uint8_t kept[PAT_TYPEDA7A_STATE_LEN];
    memcpy(kept, state, k->state_len);
    rc = k->finalize(v->pk, v->pk_len, state, k->state_len, same_as_other ? empty : other,
                     same_as_other ? sizeof empty : sizeof other, v->response, v->response_len, token, k->token_len);
    CHECK(pat_error_kind(rc) == PAT_E_EXTENSIONS_MISMATCH && memcmp(kept, state, k->state_len) == 0 &&
              all_zero(token, k->token_len),
          "%s: other extensions at finalize (%d)", where, rc);
    rc = k->finalize(v->pk, v->pk_len, state, k->state_len, v->extensions, v->extensions_len, v->response,
                     v->response_len, token, k->token_len);
    CHECK(rc == (int32_t)k->token_len && (size_t)rc == v->token_len && memcmp(token, v->token, v->token_len) == 0,
          "%s: token differs (%d)", where, rc);
    CHECK(all_zero(state, k->state_len), "%s: the state is not wiped after finalize", where);

    /* `PrivateToken token="<base64url>", extensions="<base64url>"`. */
    char expected[2048];
    strcpy(expected, "PrivateToken token=\"");
    b64url(v->token, v->token_len, expected + strlen(expected));
    strcat(expected, "\", extensions=\"");
    b64url(v->extensions, v->extensions_len, expected + strlen(expected));
    strcat(expected, "\"");
    rc = pat_authorization_with_extensions(v->token, v->token_len, v->extensions, v->extensions_len, auth,
                                           (size_t)auth_size);
    CHECK(rc == auth_size - 1 && strcmp(auth, expected) == 0, "%s: Authorization value differs (%d)", where, rc);
    if (k->type == 0xDA7A) {
        /* The origin's side: the Authorization value read back, the token
         * verified with its extensions, and with other ones refused. */
        uint8_t read_token[PAT_TYPEDA7A_TOKEN_LEN], read_ext[MAX_EXT];
        int32_t tn = pat_authorization_token(auth, (size_t)rc, read_token, sizeof read_token);
        int32_t en = pat_authorization_extensions(auth, (size_t)rc, read_ext, sizeof read_ext);
        CHECK(tn == (int32_t)v->token_len && memcmp(read_token, v->token, v->token_len) == 0 &&
                  en == (int32_t)v->extensions_len && memcmp(read_ext, v->extensions, v->extensions_len) == 0,
              "%s: the Authorization value read back differs (%d, %d)", where, tn, en);
        rc = pat_typeda7a_verify(v->pk, v->pk_len, v->challenge, v->challenge_len, v->token, v->token_len,
                                 v->extensions, v->extensions_len);
        CHECK(rc == 0, "%s: the origin refused the token (%d)", where, rc);
        rc = pat_typeda7a_verify(v->pk, v->pk_len, v->challenge, v->challenge_len, v->token, v->token_len,
                                 same_as_other ? empty : other, same_as_other ? sizeof empty : sizeof other);
        CHECK(rc == -PAT_E_VERIFICATION, "%s: the origin took other extensions (%d)", where, rc);
    }
    CHECK(guard_intact(request + request_len) && guard_intact(state + k->state_len) &&
              guard_intact(token + k->token_len) && guard_intact((uint8_t *)auth + auth_size),
          "%s: a write past an output's capacity", where);
    return failed == before;
}

/* An amortized batch of pat-go's (types 0x0001 and 0x0005): the batch
 * request from the case's nonces and blinds byte for byte, and its
 * finalize giving the case's tokens one after the other. */
static bool run_case_amortized(const json_case *c, const char *where) {
    int before = failed;
    const json_field *nf = json_get(c, "nonces"), *bf = json_get(c, "blinds"), *tf = json_get(c, "tokens");
    size_t pk_len = 0, ch_len = 0, n_len = 0, b_len = 0, req_len = 0, resp_len = 0, tok_len = 0;
    uint8_t *pk = json_hex(c, "pkS", &pk_len), *ch = json_hex(c, "token_challenge", &ch_len);
    uint8_t *nonces = json_hex(c, "nonces", &n_len), *blinds = json_hex(c, "blinds", &b_len);
    uint8_t *req = json_hex(c, "token_request", &req_len), *resp = json_hex(c, "token_response", &resp_len);
    uint8_t *toks = json_hex(c, "tokens", &tok_len);
    uint16_t type = ch != NULL && ch_len >= 2 ? (uint16_t)(ch[0] << 8 | ch[1]) : 0;
    size_t count = nf != NULL ? nf->items : 0, token_len = type == 1 ? PAT_TYPE1_TOKEN_LEN : PAT_TYPE5_TOKEN_LEN;
    size_t state_len = type == 1 ? PAT_TYPE1_BATCH_STATE_LEN : PAT_TYPE5_BATCH_STATE_LEN;
    bool shapes = pk && ch && nonces && blinds && req && resp && toks && bf && tf && (type == 1 || type == 5) &&
                  bf->items == count && tf->items == count && count >= 1 && count <= PAT_BATCH_MAX &&
                  tok_len == count * token_len && req_len <= 512;
    CHECK(shapes, "%s: an amortized case needs pkS, a type-1 or type-5 challenge, and as many nonces, blinds and "
                  "tokens (1 to %d)", where, PAT_BATCH_MAX);
    if (shapes) {
        uint8_t request[512 + GUARD], state[PAT_TYPE1_BATCH_STATE_LEN + GUARD];
        uint8_t tokens[PAT_BATCH_MAX * PAT_TYPE5_TOKEN_LEN + GUARD];
        int32_t len = type == 1 ? pat_type1_batch_request_len(count) : pat_type5_batch_request_len(count);
        int32_t rlen = type == 1 ? pat_type1_batch_response_len(count) : pat_type5_batch_response_len(count);
        CHECK(len == (int32_t)req_len && rlen == (int32_t)resp_len, "%s: lengths %d and %d for %zu tokens", where,
              len, rlen, count);
        memset(request + req_len, 0xA5, GUARD);
        memset(state + state_len, 0xA5, GUARD);
        memset(tokens + tok_len, 0xA5, GUARD);
        int32_t rc = type == 1 ? pat_type1_request_batch_with(pk, pk_len, ch, ch_len, nonces, n_len, blinds, b_len,
                                                              request, req_len, state, state_len)
                               : pat_type5_request_batch_with(pk, pk_len, ch, ch_len, nonces, n_len, blinds, b_len,
                                                              request, req_len, state, state_len);
        CHECK(rc == (int32_t)req_len && memcmp(request, req, req_len) == 0, "%s: token_request differs (%d)", where,
              rc);
        rc = type == 1 ? pat_type1_finalize_batch(pk, pk_len, state, state_len, resp, resp_len, tokens, tok_len)
                       : pat_type5_finalize_batch(pk, pk_len, state, state_len, resp, resp_len, tokens, tok_len);
        CHECK(rc == (int32_t)tok_len && memcmp(tokens, toks, tok_len) == 0, "%s: tokens differ (%d)", where, rc);
        CHECK(all_zero(state, state_len), "%s: the state is not wiped after finalize", where);
        CHECK(guard_intact(request + req_len) && guard_intact(state + state_len) && guard_intact(tokens + tok_len),
              "%s: a write past an output's capacity", where);
    }
    free(pk); free(ch); free(nonces); free(blinds); free(req); free(resp); free(toks);
    return failed == before;
}

/* Runs one case; returns true when every step gave the expected bytes. */
static bool run_case(const vector *v, const char *where) {
    int before = failed;
    if (v->challenge_len < 2) {
        CHECK(false, "%s: no token type in the challenge", where);
        return false;
    }
    uint16_t type = (uint16_t)(v->challenge[0] << 8 | v->challenge[1]);
    for (size_t i = 0; i < sizeof EXTENDED_KINDS / sizeof EXTENDED_KINDS[0]; i++) {
        if (EXTENDED_KINDS[i].type == type) return run_case_extended(&EXTENDED_KINDS[i], v, where);
    }
    const kind *k = kind_of(type);
    if (k == NULL) {
        CHECK(false, "%s: token type %u is not a client type of the C API", where, type);
        return false;
    }
    /* Each output is given exactly its size, followed by guard bytes that
     * must survive: the library writes nothing past a capacity. */
    uint8_t request[PAT_TYPE2_REQUEST_LEN + GUARD], state[PAT_TYPE2_STATE_LEN + GUARD];
    uint8_t token[PAT_TYPE2_TOKEN_LEN + GUARD];
    char auth[PAT_TYPE2_AUTHORIZATION_SIZE + GUARD], expected_auth[PAT_TYPE2_AUTHORIZATION_SIZE];
    memset(request + k->request_len, 0xA5, GUARD);
    memset(state + k->state_len, 0xA5, GUARD);
    memset(token + k->token_len, 0xA5, GUARD);
    memset(auth + k->authorization_size, 0xA5, GUARD);
    int32_t rc;
    if (type == 2) {
        uint8_t blind[PAT_TYPE2_BLIND_LEN] = {0};
        if (v->blind_len > sizeof blind) {
            CHECK(false, "%s: blind longer than the modulus", where);
            return false;
        }
        memcpy(blind + sizeof blind - v->blind_len, v->blind, v->blind_len); /* big-endian, left-padded */
        rc = pat_type2_request_with(v->pk, v->pk_len, v->challenge, v->challenge_len, v->nonce, v->nonce_len,
                                    v->salt, v->salt_len, blind, sizeof blind, request, k->request_len, state,
                                    k->state_len);
    } else if (type == 1) {
        rc = pat_type1_request_with(v->pk, v->pk_len, v->challenge, v->challenge_len, v->nonce, v->nonce_len,
                                    v->blind, v->blind_len, request, k->request_len, state, k->state_len);
    } else {
        rc = pat_type5_request_with(v->pk, v->pk_len, v->challenge, v->challenge_len, v->nonce, v->nonce_len,
                                    v->blind, v->blind_len, request, k->request_len, state, k->state_len);
    }
    CHECK(rc == (int32_t)k->request_len, "%s: request returned %d", where, rc);
    CHECK(rc >= 0 && (size_t)rc == v->request_len && memcmp(request, v->request, v->request_len) == 0,
          "%s: token_request differs", where);

    rc = finalize(type, v->pk, v->pk_len, state, k->state_len, v->response, v->response_len, token, k->token_len);
    CHECK(rc == (int32_t)k->token_len, "%s: finalize returned %d", where, rc);
    CHECK(rc >= 0 && (size_t)rc == v->token_len && memcmp(token, v->token, v->token_len) == 0,
          "%s: token differs", where);
    CHECK(all_zero(state, k->state_len), "%s: the state is not wiped after finalize", where);

    /* The wiped state cannot finalize again. */
    uint8_t again[PAT_TYPE2_TOKEN_LEN];
    rc = finalize(type, v->pk, v->pk_len, state, k->state_len, v->response, v->response_len, again, k->token_len);
    CHECK(pat_error_kind(rc) == PAT_E_UNKNOWN_STATE_VERSION && pat_error_detail(rc) == 0,
          "%s: a wiped state finalized again (%d)", where, rc);

    /* The Authorization value: `PrivateToken token="<base64url>"`. */
    if (v->token_len != k->token_len) {
        CHECK(false, "%s: the vector's token is not %zu bytes", where, k->token_len);
        return false;
    }
    rc = pat_authorization(v->token, v->token_len, auth, k->authorization_size);
    strcpy(expected_auth, "PrivateToken token=\"");
    b64url(v->token, v->token_len, expected_auth + strlen(expected_auth));
    strcat(expected_auth, "\"");
    CHECK(rc == (int32_t)k->authorization_size - 1 && strcmp(auth, expected_auth) == 0,
          "%s: Authorization value differs (%d)", where, rc);
    if (type == 2) {
        /* The origin's side: the token read back from the value verifies
         * with the issuer's key and the challenge; a flipped bit does not. */
        uint8_t read_token[PAT_TYPE2_TOKEN_LEN];
        int32_t tn = pat_authorization_token(auth, (size_t)rc, read_token, sizeof read_token);
        CHECK(tn == (int32_t)v->token_len && memcmp(read_token, v->token, v->token_len) == 0,
              "%s: the token read back differs (%d)", where, tn);
        rc = pat_type2_verify(v->pk, v->pk_len, v->challenge, v->challenge_len, read_token, sizeof read_token);
        CHECK(rc == 0, "%s: the origin refused the token (%d)", where, rc);
        read_token[sizeof read_token - 1] ^= 1;
        rc = pat_type2_verify(v->pk, v->pk_len, v->challenge, v->challenge_len, read_token, sizeof read_token);
        CHECK(rc == -PAT_E_VERIFICATION, "%s: the origin took a forged token (%d)", where, rc);
    }
    CHECK(guard_intact(request + k->request_len) && guard_intact(state + k->state_len) &&
              guard_intact(token + k->token_len) && guard_intact((uint8_t *)auth + k->authorization_size),
          "%s: a write past an output's capacity", where);
    return failed == before;
}

/* One vector file: `FILE: N passed, M failed`. Returns false when a case
 * failed or the file had none. */
/* ---- ARC (draft-ietf-privacypass-arc-crypto-01) -------------------------- */

/* Where each field of the ARC vectors lies in pat_arc_run_with's output
 * (secret key 128 ‖ public key 99 ‖ request state 162 ‖ request 226 ‖
 * response 454 ‖ credential 131 ‖ presentations); len 0: to the end of
 * that output. */
typedef struct {
    const char *group, *field;
    size_t at, len;
} arc_slice;

enum { ARC_SK = 0, ARC_PK = 128, ARC_ST = 227, ARC_REQ = 389, ARC_RESP = 615, ARC_CRED = 1069, ARC_P1 = 1200 };

/* The fixed part; the presentations' fields are added per presentation. */
static const arc_slice ARC_FIXED[] = {
    {"ServerKey", "x0", ARC_SK, 32},      {"ServerKey", "x1", ARC_SK + 32, 32},
    {"ServerKey", "x2", ARC_SK + 64, 32}, {"ServerKey", "xb", ARC_SK + 96, 32},
    {"ServerKey", "X0", ARC_PK, 33},      {"ServerKey", "X1", ARC_PK + 33, 33},
    {"ServerKey", "X2", ARC_PK + 66, 33},
    {"CredentialRequest", "m1", ARC_ST, 32},        {"CredentialRequest", "r1", ARC_ST + 32, 32},
    {"CredentialRequest", "r2", ARC_ST + 64, 32},   {"CredentialRequest", "m1_enc", ARC_REQ, 33},
    {"CredentialRequest", "m2_enc", ARC_REQ + 33, 33}, {"CredentialRequest", "proof", ARC_REQ + 66, 160},
    {"CredentialResponse", "U", ARC_RESP, 33},        {"CredentialResponse", "enc_U_prime", ARC_RESP + 33, 33},
    {"CredentialResponse", "X0_aux", ARC_RESP + 66, 33}, {"CredentialResponse", "X1_aux", ARC_RESP + 99, 33},
    {"CredentialResponse", "X2_aux", ARC_RESP + 132, 33}, {"CredentialResponse", "H_aux", ARC_RESP + 165, 33},
    {"CredentialResponse", "proof", ARC_RESP + 198, 256},
    {"Credential", "m1", ARC_CRED, 32},   {"Credential", "U", ARC_CRED + 32, 33},
    {"Credential", "U_prime", ARC_CRED + 65, 33}, {"Credential", "X1", ARC_CRED + 98, 33},
};
/* A presentation's fields, relative to its start (proof: to its end). */
static const arc_slice ARC_PRESENTATION[] = {
    {NULL, "U", 0, 33},   {NULL, "U_prime_commit", 33, 33}, {NULL, "m1_commit", 66, 33},
    {NULL, "tag", 99, 33}, {NULL, "nonce_commit", 132, 33}, {NULL, "D_0", 165, 33}, {NULL, "proof", 165, 0},
};
/* The library's internal scalars, per group: in the file, in no output of
 * the API (`pat vectors verify` checks them); each must be present. */
static const struct {
    const char *group, *field;
} ARC_INTERNAL[] = {
    {"CredentialRequest", "m2"}, {"CredentialResponse", "b"},
    {"Presentation1", "a"},      {"Presentation1", "r"},     {"Presentation1", "z"}, {"Presentation1", "nonce_blinding"},
    {"Presentation2", "a"},      {"Presentation2", "r"},     {"Presentation2", "z"}, {"Presentation2", "nonce_blinding"},
};
enum { ARC_INTERNAL_COUNT = sizeof ARC_INTERNAL / sizeof *ARC_INTERNAL };

static bool arc_internal(const char *group, const char *field) {
    for (size_t i = 0; i < ARC_INTERNAL_COUNT; i++) {
        if (strcmp(group, ARC_INTERNAL[i].group) == 0 && strcmp(field, ARC_INTERNAL[i].field) == 0) return true;
    }
    return false;
}

static size_t arc_internal_in(const char *group) {
    size_t n = 0;
    for (size_t i = 0; i < ARC_INTERNAL_COUNT; i++) n += strcmp(group, ARC_INTERNAL[i].group) == 0;
    return n;
}

/* Compares one group's fields with the run; counts what it compared and skipped. */
static bool arc_group(const json_case *g, const uint8_t *run, size_t each, const char *path, int *compared,
                      int *internal) {
    int before = failed;
    int presentation = strcmp(g->name, "Presentation1") == 0 ? 0 : strcmp(g->name, "Presentation2") == 0 ? 1 : -1;
    size_t wanted = 0;
    for (size_t i = 0; i < sizeof ARC_FIXED / sizeof *ARC_FIXED; i++) wanted += strcmp(ARC_FIXED[i].group, g->name) == 0;
    if (presentation >= 0) wanted = sizeof ARC_PRESENTATION / sizeof *ARC_PRESENTATION + 2; /* and nonce, context */
    size_t found = 0;
    for (size_t f = 0; f < g->count; f++) {
        const char *name = g->fields[f].name;
        if (arc_internal(g->name, name)) {
            (*internal)++;
            found++;
            continue;
        }
        if (presentation >= 0 && strcmp(name, "nonce") == 0) {
            /* Written "0x0", "0x1". No output of the API holds it (the
             * presentation hides it): checked against the state's counter,
             * which gives 0 then 1, and not counted as compared. */
            const char *v = g->fields[f].value;
            char *end = NULL;
            unsigned long nonce = strtoul(v, &end, 16);
            CHECK(strncmp(v, "0x", 2) == 0 && end != NULL && *end == '\0' && nonce == (unsigned long)presentation,
                  "%s %s.nonce is %s, the state's counter is %d", path, g->name, v, presentation);
            found++;
            continue;
        }
        size_t n;
        uint8_t *want = json_hex(g, name, &n);
        if (want == NULL) {
            CHECK(false, "%s %s.%s: not hex", path, g->name, name);
            continue;
        }
        bool known = false, same = false, input = false;
        if (presentation >= 0) {
            const uint8_t *p = run + ARC_P1 + (size_t)presentation * each;
            for (size_t i = 0; i < sizeof ARC_PRESENTATION / sizeof *ARC_PRESENTATION; i++) {
                const arc_slice *sl = &ARC_PRESENTATION[i];
                if (strcmp(sl->field, name) != 0) continue;
                size_t len = sl->len ? sl->len : each - sl->at;
                known = true;
                same = n == len && memcmp(p + sl->at, want, n) == 0;
            }
            if (strcmp(name, "presentation_context") == 0) known = input = same = true; /* the run's input */
        } else if (strcmp(g->name, "CredentialRequest") == 0 && strcmp(name, "request_context") == 0) {
            known = input = same = true; /* the run's input */
        } else {
            for (size_t i = 0; i < sizeof ARC_FIXED / sizeof *ARC_FIXED; i++) {
                const arc_slice *sl = &ARC_FIXED[i];
                if (strcmp(sl->group, g->name) != 0 || strcmp(sl->field, name) != 0) continue;
                known = true;
                same = n == sl->len && memcmp(run + sl->at, want, n) == 0;
            }
        }
        free(want);
        CHECK(known, "%s %s.%s: a field this test does not know", path, g->name, name);
        CHECK(!known || same, "%s %s.%s differs", path, g->name, name);
        if (known) found++;
        if (known && !input) (*compared)++;
    }
    if (strcmp(g->name, "CredentialRequest") == 0) wanted++; /* request_context */
    wanted += arc_internal_in(g->name);
    CHECK(found == wanted, "%s %s: %zu fields found, %zu expected", path, g->name, found, wanted);
    return failed == before;
}

/* The ARC file: the protocol re-run by pat_arc_run_with from the draft's
 * generator (seed "test vector seed" and 16 zero bytes, limit 2, two
 * presentations), each group one case. */
static bool run_arc_file(const char *path, char *text) {
    static json_case groups[JSON_MAX_CASES];
    char err[128];
    int n = json_read_groups(text, "ARCV1-P256", groups, err, sizeof err);
    if (n <= 0) {
        printf("%s: %s\n", path, n == 0 ? "no groups" : err);
        return false;
    }
    const json_case *req = NULL, *p1 = NULL, *p2 = NULL;
    for (int i = 0; i < n; i++) {
        if (strcmp(groups[i].name, "CredentialRequest") == 0) req = &groups[i];
        if (strcmp(groups[i].name, "Presentation1") == 0) p1 = &groups[i];
        if (strcmp(groups[i].name, "Presentation2") == 0) p2 = &groups[i];
    }
    size_t rlen = 0, plen = 0, plen2 = 0;
    uint8_t *rctx = req ? json_hex(req, "request_context", &rlen) : NULL;
    uint8_t *pctx = p1 ? json_hex(p1, "presentation_context", &plen) : NULL;
    uint8_t *pctx2 = p2 ? json_hex(p2, "presentation_context", &plen2) : NULL;
    bool ok = rctx && pctx && pctx2 && plen == plen2 && memcmp(pctx, pctx2, plen) == 0;
    CHECK(ok, "%s: the contexts are missing or differ", path);
    int good = 0, bad = 0, compared = 0, internal = 0;
    if (ok) {
        uint8_t seed[32] = "test vector seed";
        static uint8_t run[8192 + GUARD];
        int32_t token_len = pat_arc_token_len(2);
        /* 556 bytes: 70 of header, then a presentation of 486 (limit 2). */
        CHECK(token_len == 556, "%s: pat_arc_token_len(2) is %d", path, token_len);
        size_t each = token_len == 556 ? 486 : 0;
        size_t total = ARC_P1 + 2 * each;
        int32_t rc = -1;
        if (each > 0 && total <= 8192) {
            memset(run + total, 0xA5, GUARD);
            rc = pat_arc_run_with(seed, sizeof seed, rctx, rlen, pctx, plen, 2, 2, run, total);
        }
        CHECK(rc == (int32_t)total, "%s: pat_arc_run_with gave %d, %zu expected", path, rc, total);
        CHECK(guard_intact(run + total), "%s: a write past the run's capacity", path);
        for (int i = 0; i < n && rc == (int32_t)total; i++) {
            if (arc_group(&groups[i], run, each, path, &compared, &internal)) good++;
            else bad++;
        }
        if (rc != (int32_t)total) bad = n;
    } else {
        bad = n;
    }
    free(rctx);
    free(pctx);
    free(pctx2);
    printf("%s: %d fields compared; %d internal scalars (m2, b, a, r, z, nonce_blinding) in no output of the API, "
           "checked by `pat vectors verify`\n",
           path, compared, internal);
    CHECK(internal == ARC_INTERNAL_COUNT, "%s: %d internal scalars, %d expected", path, internal, (int)ARC_INTERNAL_COUNT);
    printf("%s: %d passed, %d failed\n", path, good, bad);
    return bad == 0 && good == 6 && internal == ARC_INTERNAL_COUNT;
}

/* An ATHM state's first bytes (pat's state format: version 1, shape 4,
 * the token type), before r ‖ tc ‖ T ‖ key id. */
static const uint8_t ATHM_STATE_HEADER[] = {0x01, 0x04, 0xC0, 0x7E};
#define ATHM_STATE_HEAD sizeof ATHM_STATE_HEADER

/* The procedure `name` of an ATHM file, or NULL. */
static const json_case *athm_procedure(const json_case *procs, int n, const char *name) {
    for (int i = 0; i < n; i++) {
        if (strcmp(procs[i].name, name) == 0) return &procs[i];
    }
    return NULL;
}

/* The ATHM reference's file (draft-yun-cfrg-athm-00, 4 buckets): the
 * client's procedures through pat_athm_request_with and
 * pat_athm_finalize_with, which replay its ChaCha20 generator from each
 * `rng_seed`, byte for byte: the two client procedures are the file's
 * passes. params and key_gen give the deployment and the token key (its
 * id must lead the request and close the state); the issuer's
 * token_response and verify_token have no client call: counted, and left
 * to `pat vectors verify`. */
static bool run_athm_file(const char *path, char *text) {
    static json_case procs[JSON_MAX_CASES];
    char err[128];
    int n = json_read_procedures(text, procs, err, sizeof err);
    if (n <= 0) {
        printf("%s: %s\n", path, n == 0 ? "no procedures" : err);
        return false;
    }
    int before = failed;
    const json_case *params = athm_procedure(procs, n, "params"), *key_gen = athm_procedure(procs, n, "key_gen");
    const json_case *req = athm_procedure(procs, n, "token_request");
    const json_case *fin = athm_procedure(procs, n, "finalize_token");
    const json_field *deployment = params ? json_get(params, "deployment_id") : NULL;
    const json_field *buckets = params ? json_get(params, "n_buckets") : NULL;
    size_t pk_len = 0, proof_len = 0, key_id_len = 0, seed_len = 0, ctx_len = 0, t_len = 0, fseed_len = 0;
    size_t fctx_len = 0, ft_len = 0, resp_len = 0, token_len = 0, rpk_len = 0, fpk_len = 0;
    uint8_t *pk = key_gen ? json_hex(key_gen, "public_key", &pk_len) : NULL;
    uint8_t *proof = key_gen ? json_hex(key_gen, "public_key_proof", &proof_len) : NULL;
    uint8_t *key_id = key_gen ? json_hex(key_gen, "key_id", &key_id_len) : NULL;
    uint8_t *rpk = req ? json_hex(req, "public_key", &rpk_len) : NULL;
    uint8_t *seed = req ? json_hex(req, "rng_seed", &seed_len) : NULL;
    uint8_t *ctx = req ? json_hex(req, "token_context", &ctx_len) : NULL;
    uint8_t *t = req ? json_hex(req, "token_request", &t_len) : NULL;
    uint8_t *fpk = fin ? json_hex(fin, "public_key", &fpk_len) : NULL;
    uint8_t *fseed = fin ? json_hex(fin, "rng_seed", &fseed_len) : NULL;
    uint8_t *fctx = fin ? json_hex(fin, "token_context", &fctx_len) : NULL;
    uint8_t *ft = fin ? json_hex(fin, "token_request", &ft_len) : NULL;
    uint8_t *resp = fin ? json_hex(fin, "token_response", &resp_len) : NULL;
    uint8_t *token = fin ? json_hex(fin, "token", &token_len) : NULL;
    bool shapes = deployment && buckets && strcmp(buckets->value, "4") == 0 && PAT_ATHM_BUCKETS == 4 && pk && proof &&
                  key_id && rpk && seed && ctx && t && fpk && fseed && fctx && ft && resp && token &&
                  pk_len + proof_len == PAT_ATHM_TOKEN_KEY_LEN && key_id_len == PAT_KEY_ID_LEN &&
                  rpk_len == pk_len && memcmp(rpk, pk, pk_len) == 0 && fpk_len == pk_len &&
                  memcmp(fpk, pk, pk_len) == 0 && t_len + 3 == PAT_ATHM_REQUEST_LEN &&
                  ATHM_STATE_HEAD + ctx_len + t_len + PAT_KEY_ID_LEN == PAT_ATHM_STATE_LEN && fctx_len == ctx_len && ft_len == t_len &&
                  resp_len == PAT_ATHM_RESPONSE_LEN && token_len + 34 == PAT_ATHM_TOKEN_LEN;
    CHECK(shapes, "%s: a procedure or field is missing, or of another shape than 4 buckets' (n_buckets %s)", path,
          buckets ? buckets->value : "missing");
    int good = 0, bad = 0;
    if (shapes) {
        const uint8_t *id = (const uint8_t *)deployment->value;
        uint8_t key[PAT_ATHM_TOKEN_KEY_LEN], request[PAT_ATHM_REQUEST_LEN + GUARD], state[PAT_ATHM_STATE_LEN + GUARD];
        uint8_t out[PAT_ATHM_TOKEN_LEN + GUARD];
        char auth[PAT_ATHM_AUTHORIZATION_SIZE + GUARD], expected[PAT_ATHM_AUTHORIZATION_SIZE];
        memcpy(key, pk, pk_len);
        memcpy(key + pk_len, proof, proof_len);
        memset(request + PAT_ATHM_REQUEST_LEN, 0xA5, GUARD);
        memset(state + PAT_ATHM_STATE_LEN, 0xA5, GUARD);
        memset(out + PAT_ATHM_TOKEN_LEN, 0xA5, GUARD);
        memset(auth + PAT_ATHM_AUTHORIZATION_SIZE, 0xA5, GUARD);
        /* token_request. */
        int f0 = failed;
        int32_t rc = pat_athm_request_with(id, deployment->value_len, key, sizeof key, seed, seed_len, request,
                                           PAT_ATHM_REQUEST_LEN, state, PAT_ATHM_STATE_LEN);
        CHECK(rc == PAT_ATHM_REQUEST_LEN && request[0] == 0xC0 && request[1] == 0x7E && request[2] == key_id[31] &&
                  memcmp(request + 3, t, t_len) == 0,
              "%s: token_request differs (%d)", path, rc);
        CHECK(rc == PAT_ATHM_REQUEST_LEN && memcmp(state, ATHM_STATE_HEADER, ATHM_STATE_HEAD) == 0 &&
                  memcmp(state + ATHM_STATE_HEAD, ctx, ctx_len) == 0 &&
                  memcmp(state + ATHM_STATE_HEAD + ctx_len, t, t_len) == 0 &&
                  memcmp(state + ATHM_STATE_HEAD + ctx_len + t_len, key_id, PAT_KEY_ID_LEN) == 0,
              "%s: the state's token_context or key id differs", path);
        failed == f0 ? good++ : bad++;
        /* finalize_token, from the file's context and request. */
        f0 = failed;
        memcpy(state, ATHM_STATE_HEADER, ATHM_STATE_HEAD);
        memcpy(state + ATHM_STATE_HEAD, fctx, fctx_len);
        memcpy(state + ATHM_STATE_HEAD + fctx_len, ft, ft_len);
        memcpy(state + ATHM_STATE_HEAD + fctx_len + ft_len, key_id, PAT_KEY_ID_LEN);
        rc = pat_athm_finalize_with(id, deployment->value_len, key, sizeof key, state, PAT_ATHM_STATE_LEN, resp,
                                    resp_len, fseed, fseed_len, out, PAT_ATHM_TOKEN_LEN);
        CHECK(rc == PAT_ATHM_TOKEN_LEN && out[0] == 0xC0 && out[1] == 0x7E &&
                  memcmp(out + 2, key_id, PAT_KEY_ID_LEN) == 0 && memcmp(out + 34, token, token_len) == 0,
              "%s: token differs (%d)", path, rc);
        CHECK(all_zero(state, PAT_ATHM_STATE_LEN), "%s: the state is not wiped after finalize", path);
        strcpy(expected, "PrivateToken token=\"");
        b64url(out, PAT_ATHM_TOKEN_LEN, expected + strlen(expected));
        strcat(expected, "\"");
        rc = pat_authorization(out, PAT_ATHM_TOKEN_LEN, auth, PAT_ATHM_AUTHORIZATION_SIZE);
        CHECK(rc == PAT_ATHM_AUTHORIZATION_SIZE - 1 && strcmp(auth, expected) == 0,
              "%s: Authorization value differs (%d)", path, rc);
        CHECK(guard_intact(request + PAT_ATHM_REQUEST_LEN) && guard_intact(state + PAT_ATHM_STATE_LEN) &&
                  guard_intact(out + PAT_ATHM_TOKEN_LEN) && guard_intact((uint8_t *)auth + PAT_ATHM_AUTHORIZATION_SIZE),
              "%s: a write past an output's capacity", path);
        failed == f0 ? good++ : bad++;
    } else {
        bad = n;
    }
    int issuer_side = (athm_procedure(procs, n, "token_response") != NULL) + (athm_procedure(procs, n, "verify_token") != NULL);
    printf("%s: %d issuer procedures (token_response, verify_token) with no client call, checked by `pat vectors "
           "verify`\n",
           path, issuer_side);
    CHECK(issuer_side == 2 && n == 6, "%s: %d procedures, 6 expected", path, n);
    free(pk); free(proof); free(key_id); free(rpk); free(seed); free(ctx); free(t);
    free(fpk); free(fseed); free(fctx); free(ft); free(resp); free(token);
    printf("%s: %d passed, %d failed\n", path, good, bad);
    return failed == before && good == 2;
}

/* ACT's appendix (draft-schlesinger-cfrg-act-01): each run re-made by
 * pat_act_run_with from its seed, domain separator, L, ctx, c, s and t,
 * every CBOR field compared in order, and the next credential's balance
 * read back by pat_act_credits. */
static const char *const ACT_FIELDS[] = {
    "sk_cbor",        "pk_cbor",           "preissuance_cbor", "issuance_request_cbor", "issuance_response_cbor",
    "credit_token_cbor", "spend_proof_cbor", "prerefund_cbor",  "refund_cbor",           "refund_token_cbor",
};
#define ACT_FIELD_COUNT (sizeof ACT_FIELDS / sizeof ACT_FIELDS[0])

static bool run_act_case(const json_case *c, const char *where) {
    int before = failed;
    const json_field *ds = json_get(c, "domain_separator");
    uint64_t l = 0, credits = 0, spend = 0, back = 0, remaining = 0;
    size_t seed_len = 0, ctx_len = 0;
    uint8_t *seed = json_hex(c, "rng_seed", &seed_len), *ctx = json_hex(c, "ctx", &ctx_len);
    bool shapes = ds && !ds->number && seed && ctx && json_u64(c, "L", &l) == 0 && json_u64(c, "c", &credits) == 0 &&
                  json_u64(c, "s", &spend) == 0 && json_u64(c, "t", &back) == 0 &&
                  json_u64(c, "remaining_balance", &remaining) == 0;
    uint8_t *want[ACT_FIELD_COUNT] = {0};
    size_t want_len[ACT_FIELD_COUNT] = {0}, total = 0;
    for (size_t i = 0; i < ACT_FIELD_COUNT; i++) {
        want[i] = json_hex(c, ACT_FIELDS[i], &want_len[i]);
        shapes = shapes && want[i] != NULL;
        total += want_len[i];
    }
    CHECK(shapes && total <= 16384, "%s: an ACT run needs its seed, domain separator, L, ctx, c, s, t, balance and "
                                    "ten CBOR fields", where);
    if (shapes && total <= 16384) {
        static uint8_t out[16384 + GUARD];
        memset(out + total, 0xA5, GUARD);
        int32_t rc = pat_act_run_with(seed, seed_len, (const uint8_t *)ds->value, ds->value_len, (size_t)l, ctx,
                                      ctx_len, credits, spend, back, out, total);
        CHECK(rc == (int32_t)total, "%s: pat_act_run_with gave %d, %zu expected", where, rc, total);
        size_t at = 0;
        for (size_t i = 0; i < ACT_FIELD_COUNT && rc == (int32_t)total; i++) {
            CHECK(memcmp(out + at, want[i], want_len[i]) == 0, "%s: %s differs", where, ACT_FIELDS[i]);
            at += want_len[i];
        }
        uint64_t balance = UINT64_MAX;
        const uint8_t *next = want[ACT_FIELD_COUNT - 1];
        rc = pat_act_credits(next, want_len[ACT_FIELD_COUNT - 1], (size_t)l, &balance);
        CHECK(rc == 0 && balance == remaining, "%s: the next credential holds %llu (%d), %llu expected", where,
              (unsigned long long)balance, rc, (unsigned long long)remaining);
        CHECK(guard_intact(out + total), "%s: a write past the output's capacity", where);
    }
    for (size_t i = 0; i < ACT_FIELD_COUNT; i++) free(want[i]);
    free(seed);
    free(ctx);
    return failed == before;
}

/* A generic batch file (pat-go's batched files, the privacypass crate's
 * generic one): per batch, the request from the entries' nonces, salts and
 * blinds byte for byte, then its finalize giving each entry's token. */
static const json_field *either(const json_case *c, const char *a, const char *b) {
    const json_field *f = json_get(c, a);
    return f != NULL ? f : json_get(c, b);
}

static uint8_t *either_hex(const json_case *c, const char *a, const char *b, size_t *len) {
    return json_get(c, a) != NULL ? json_hex(c, a, len) : json_hex(c, b, len);
}

static bool run_generic_batch(const json_case *head, const json_case *entries, size_t count, const char *where) {
    int before = failed;
    size_t req_len = 0, resp_len = 0;
    uint8_t *req = json_hex(head, "token_request", &req_len), *resp = json_hex(head, "token_response", &resp_len);
    uint8_t *keys[PAT_BATCH_MAX] = {0}, *challenges[PAT_BATCH_MAX] = {0}, *tokens[PAT_BATCH_MAX] = {0};
    size_t token_lens[PAT_BATCH_MAX] = {0};
    pat_batch_entry list[PAT_BATCH_MAX];
    /* nonce + salt + blind of type 0x0002, the longest, per entry */
    static uint8_t randomness[PAT_BATCH_MAX * (PAT_NONCE_LEN + PAT_TYPE2_SALT_LEN + PAT_TYPE2_BLIND_LEN)];
    size_t used = 0, total = 0;
    bool shapes = req != NULL && resp != NULL && count >= 1 && count <= PAT_BATCH_MAX &&
                  req_len <= PAT_GENERIC_BATCH_REQUEST_MAX_LEN;
    for (size_t i = 0; shapes && i < count; i++) {
        const json_case *e = &entries[i];
        const json_field *salt = json_get(e, "salt");
        bool has_salt = salt != NULL && !salt->null;
        size_t key_len = 0, ch_len = 0, n_len = 0, b_len = 0, s_len = 0;
        keys[i] = either_hex(e, "pkS", "pk_s", &key_len);
        challenges[i] = json_hex(e, "token_challenge", &ch_len);
        tokens[i] = json_hex(e, "token", &token_lens[i]);
        uint8_t *nonce = json_hex(e, "nonce", &n_len), *blind = json_hex(e, "blind", &b_len);
        uint8_t *salt_bytes = has_salt ? json_hex(e, "salt", &s_len) : NULL;
        shapes = keys[i] && challenges[i] && tokens[i] && nonce && blind && either(e, "type", "token_type") &&
                 (!has_salt || salt_bytes) && n_len == PAT_NONCE_LEN && s_len <= PAT_TYPE2_SALT_LEN &&
                 b_len <= PAT_TYPE2_BLIND_LEN && token_lens[i] <= PAT_TYPE2_TOKEN_LEN;
        if (shapes) {
            memcpy(randomness + used, nonce, n_len);
            used += n_len;
            if (has_salt) {
                memcpy(randomness + used, salt_bytes, s_len);
                used += s_len;
            }
            memcpy(randomness + used, blind, b_len);
            used += b_len;
            total += token_lens[i];
            list[i] = (pat_batch_entry){challenges[i], ch_len, keys[i], key_len};
        }
        free(nonce); free(blind); free(salt_bytes);
    }
    CHECK(shapes, "%s: a batch needs token_request, token_response and 1 to %d entries, each with a key, a "
                  "challenge, a nonce, a blind and a token", where, PAT_BATCH_MAX);
    if (shapes) {
        static uint8_t request[PAT_GENERIC_BATCH_REQUEST_MAX_LEN + GUARD], state[PAT_GENERIC_BATCH_STATE_LEN + GUARD];
        static uint8_t out[PAT_GENERIC_BATCH_TOKENS_MAX_LEN + GUARD];
        size_t lens[PAT_BATCH_MAX];
        memset(request + req_len, 0xA5, GUARD);
        memset(state + PAT_GENERIC_BATCH_STATE_LEN, 0xA5, GUARD);
        memset(out + PAT_GENERIC_BATCH_TOKENS_MAX_LEN, 0xA5, GUARD);
        int32_t rc = pat_generic_batch_request_with(list, count, randomness, used, request, req_len, state,
                                                    PAT_GENERIC_BATCH_STATE_LEN);
        CHECK(rc == (int32_t)req_len && memcmp(request, req, req_len) == 0, "%s: token_request differs (%d)", where,
              rc);
        rc = pat_generic_batch_finalize(list, count, state, PAT_GENERIC_BATCH_STATE_LEN, resp, resp_len, out,
                                        PAT_GENERIC_BATCH_TOKENS_MAX_LEN, lens);
        CHECK(rc == (int32_t)total, "%s: finalize returned %d, not %zu", where, rc, total);
        size_t at = 0;
        for (size_t i = 0; rc == (int32_t)total && i < count; i++) {
            CHECK(lens[i] == token_lens[i] && memcmp(out + at, tokens[i], token_lens[i]) == 0,
                  "%s: entry %zu's token differs", where, i);
            at += token_lens[i];
        }
        CHECK(all_zero(state, PAT_GENERIC_BATCH_STATE_LEN), "%s: the state is not wiped after finalize", where);
        CHECK(guard_intact(request + req_len) && guard_intact(state + PAT_GENERIC_BATCH_STATE_LEN) &&
                  guard_intact(out + PAT_GENERIC_BATCH_TOKENS_MAX_LEN),
              "%s: a write past an output's capacity", where);
    }
    for (size_t i = 0; i < PAT_BATCH_MAX; i++) {
        free(keys[i]); free(challenges[i]); free(tokens[i]);
    }
    free(req); free(resp);
    return failed == before;
}

static bool run_generic_file(const char *path, char *text) {
    static json_case cases[JSON_MAX_CASES];
    char err[128];
    int n = json_read_batches(text, cases, err, sizeof err);
    if (n <= 0) {
        printf("%s: %s\n", path, n == 0 ? "no cases" : err);
        return false;
    }
    int ok = 0, bad = 0, batch = 0;
    for (int i = 0; i < n;) {
        int first = i + 1, count = 0;
        while (first + count < n && strcmp(cases[first + count].name, "entry") == 0) count++;
        char where[512];
        snprintf(where, sizeof where, "%s batch %d", path, batch++);
        if (run_generic_batch(&cases[i], &cases[first], (size_t)count, where)) {
            ok++;
        } else {
            bad++;
        }
        i = first + count;
    }
    printf("%s: %d passed, %d failed\n", path, ok, bad);
    return bad == 0;
}

static bool run_file(const char *path) {
    char *text = read_file(path);
    if (text == NULL) {
        printf("%s: cannot read\n", path);
        return false;
    }
    const char *first = text;
    while (*first == ' ' || *first == '\n' || *first == '\r' || *first == '\t') first++;
    if (*first == '{') {
        bool ok = run_arc_file(path, text);
        free(text);
        return ok;
    }
    /* The generic batch files: each batch's entries under "issuance". */
    if (strstr(text, "\"issuance\"") != NULL) {
        bool ok = run_generic_file(path, text);
        free(text);
        return ok;
    }
    /* The ATHM reference's shape: an array of procedures. */
    if (strstr(text, "\"procedure\"") != NULL) {
        bool ok = run_athm_file(path, text);
        free(text);
        return ok;
    }
    static json_case cases[JSON_MAX_CASES];
    char err[128];
    int n = json_read_cases(text, cases, err, sizeof err);
    if (n <= 0) {
        printf("%s: %s\n", path, n == 0 ? "no cases" : err);
        free(text);
        return false;
    }
    int ok = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        if (json_get(&cases[i], "domain_separator") != NULL) {
            char where[512];
            snprintf(where, sizeof where, "%s run %d", path, i);
            if (run_act_case(&cases[i], where)) {
                ok++;
            } else {
                bad++;
            }
            continue;
        }
        const json_field *batch = json_get(&cases[i], "nonces");
        if (batch != NULL && batch->items > 0) {
            char where[512];
            snprintf(where, sizeof where, "%s case %d", path, i);
            if (run_case_amortized(&cases[i], where)) {
                ok++;
            } else {
                bad++;
            }
            continue;
        }
        vector v = {0};
        v.pk = json_hex(&cases[i], "pkS", &v.pk_len);
        v.challenge = json_hex(&cases[i], "token_challenge", &v.challenge_len);
        v.nonce = json_hex(&cases[i], "nonce", &v.nonce_len);
        v.blind = json_hex(&cases[i], "blind", &v.blind_len);
        v.request = json_hex(&cases[i], "token_request", &v.request_len);
        v.response = json_hex(&cases[i], "token_response", &v.response_len);
        v.token = json_hex(&cases[i], "token", &v.token_len);
        if (json_get(&cases[i], "salt") != NULL) v.salt = json_hex(&cases[i], "salt", &v.salt_len);
        if (json_get(&cases[i], "extensions") != NULL) v.extensions = json_hex(&cases[i], "extensions", &v.extensions_len);
        char where[512];
        snprintf(where, sizeof where, "%s case %d", path, i);
        bool complete = v.pk && v.challenge && v.nonce && v.blind && v.request && v.response && v.token &&
                        (v.salt != NULL) == (json_get(&cases[i], "salt") != NULL) &&
                        (v.extensions != NULL) == (json_get(&cases[i], "extensions") != NULL);
        if (!complete) {
            CHECK(false, "%s: a field is missing or not hex", where);
        }
        if (complete && run_case(&v, where)) {
            ok++;
        } else {
            bad++;
        }
        vector_free(&v);
    }
    printf("%s: %d passed, %d failed\n", path, ok, bad);
    free(text);
    return bad == 0;
}

/* ---- the API around the vectors ------------------------------------------ */

static void api_checks(void) {
    CHECK(pat_self_test_type1() == 0, "self-test type 1");
    CHECK(pat_self_test_type2() == 0, "self-test type 2");
    CHECK(pat_self_test_type5() == 0, "self-test type 5");

    /* A type-5 key and challenge of pat-go's first type-5 case. */
    static const char *path = "tests/vectors/pat-go/tokens/private/type5-issuance-test-vectors.json";
    char *text = read_file(path);
    static json_case cases[JSON_MAX_CASES];
    char err[128];
    if (text == NULL || json_read_cases(text, cases, err, sizeof err) < 1) {
        CHECK(false, "cannot read %s (run from the repository root)", path);
        free(text);
        return;
    }
    size_t key_len = 0, challenge_len = 0, token_len = 0;
    uint8_t *key = json_hex(&cases[0], "pkS", &key_len);
    uint8_t *challenge = json_hex(&cases[0], "token_challenge", &challenge_len);
    uint8_t *vtoken = json_hex(&cases[0], "token", &token_len);
    if (key == NULL || challenge == NULL || vtoken == NULL) {
        CHECK(false, "fields of %s", path);
        return;
    }

    /* The origin writes a challenge (checked against bytes laid out here)
     * and its WWW-Authenticate value, which the client's reader reads back. */
    {
        static const uint8_t ctx[32] = {1, 2, 3};
        uint8_t expected[128], written[128];
        size_t n = 0;
        expected[n++] = 0x00; expected[n++] = 0x05; expected[n++] = 0x00; expected[n++] = 14;
        memcpy(expected + n, "issuer.example", 14); n += 14;
        expected[n++] = 32;
        memcpy(expected + n, ctx, 32); n += 32;
        expected[n++] = 0x00; expected[n++] = 14;
        memcpy(expected + n, "origin.example", 14); n += 14;
        int32_t wn = pat_token_challenge_write(5, (const uint8_t *)"issuer.example", 14, ctx, 32,
                                               (const uint8_t *)"origin.example", 14, written, sizeof written);
        CHECK(wn == (int32_t)n && memcmp(written, expected, n) == 0, "pat_token_challenge_write: %d", wn);
        uint8_t refused[128];
        CHECK(pat_token_challenge_write(5, (const uint8_t *)"issuer.example", 14, ctx, 31, NULL, 0, refused,
                                        sizeof refused) ==
                      -(PAT_E_INVALID_LENGTH + 256 * PAT_FIELD_REDEMPTION_CONTEXT) &&
                  all_zero(refused, sizeof refused),
              "a 31-byte redemption context");
        int32_t size = pat_www_authenticate_size(n, key_len, true, 60);
        char header[512];
        int32_t hn = size > 0 && (size_t)size <= sizeof header
                         ? pat_www_authenticate(written, n, key, key_len, true, 60, header, (size_t)size)
                         : -1;
        CHECK(hn == size - 1 && header[hn] == '\0', "pat_www_authenticate: %d of %d", hn, size);
        uint8_t buf[PAT_CHALLENGE_BUFFER_SIZE];
        pat_challenge c;
        int32_t cn = hn > 0 ? pat_www_authenticate_challenge(header, (size_t)hn, 0, buf, sizeof buf, &c) : -1;
        CHECK(cn == (int32_t)n && c.challenge_len == n && memcmp(c.challenge, expected, n) == 0 &&
                  c.token_key_len == key_len && memcmp(c.token_key, key, key_len) == 0 && c.has_max_age &&
                  c.max_age == 60 && c.token_type == 5,
              "the client reads the origin's challenge back: %d", cn);
    }

    /* Random requests: the right length, a non-empty secret state, and two
     * requests for one challenge differ. */
    uint8_t req1[PAT_TYPE5_REQUEST_LEN], req2[PAT_TYPE5_REQUEST_LEN];
    uint8_t st1[PAT_TYPE5_STATE_LEN], st2[PAT_TYPE5_STATE_LEN], token[PAT_TYPE5_TOKEN_LEN];
    int32_t rc = pat_type5_request(key, key_len, challenge, challenge_len, os_rng, NULL, req1, sizeof req1, st1,
                                   sizeof st1);
    CHECK(rc == PAT_TYPE5_REQUEST_LEN, "random request: %d", rc);
    rc = pat_type5_request(key, key_len, challenge, challenge_len, os_rng, NULL, req2, sizeof req2, st2, sizeof st2);
    CHECK(rc == PAT_TYPE5_REQUEST_LEN && memcmp(req1, req2, sizeof req1) != 0, "two random requests are equal");
    CHECK(!all_zero(st1, sizeof st1), "the state is empty");

    /* A response that is not an element fails and keeps the state. */
    uint8_t zeros[PAT_TYPE5_RESPONSE_LEN] = {0}, kept[PAT_TYPE5_STATE_LEN];
    memcpy(kept, st1, sizeof kept);
    memset(token, 0xAA, sizeof token);
    rc = pat_type5_finalize(key, key_len, st1, sizeof st1, zeros, sizeof zeros, token, sizeof token);
    CHECK(pat_error_kind(rc) == PAT_E_INVALID_ELEMENT, "bad response: %d", rc);
    CHECK(memcmp(kept, st1, sizeof kept) == 0 && all_zero(token, sizeof token), "state kept, token zeroed");
    pat_wipe(st1, sizeof st1);
    pat_wipe(st2, sizeof st2);
    CHECK(all_zero(st1, sizeof st1) && all_zero(st2, sizeof st2), "pat_wipe");

    /* A failing callback: its code comes back as the detail. */
    int32_t code = 1234;
    rc = pat_type5_request(key, key_len, challenge, challenge_len, failing_rng, &code, req1, sizeof req1, st1,
                           sizeof st1);
    CHECK(pat_error_kind(rc) == PAT_E_RNG && pat_error_detail(rc) == 1234, "failing callback: %d", rc);
    CHECK(all_zero(req1, sizeof req1) && all_zero(st1, sizeof st1), "outputs zeroed on error");
    rc = pat_type5_request(key, key_len, challenge, challenge_len, NULL, NULL, req1, sizeof req1, st1, sizeof st1);
    CHECK(rc == -PAT_E_NULL_POINTER, "no callback: %d", rc);

    /* Overlapping outputs, a NULL input, a short buffer, a truncated challenge. */
    uint8_t both[PAT_TYPE5_REQUEST_LEN + PAT_TYPE5_STATE_LEN];
    rc = pat_type5_request(key, key_len, challenge, challenge_len, os_rng, NULL, both, PAT_TYPE5_REQUEST_LEN,
                           both + PAT_TYPE5_REQUEST_LEN - 1, PAT_TYPE5_STATE_LEN);
    CHECK(rc == -PAT_E_OVERLAP, "overlap: %d", rc);
    /* A request buffer over the key: refused, and the key not written. */
    uint8_t key_and_request[PAT_TYPE5_TOKEN_KEY_LEN + PAT_TYPE5_REQUEST_LEN];
    if (key_len == PAT_TYPE5_TOKEN_KEY_LEN) {
        memcpy(key_and_request, key, key_len);
        rc = pat_type5_request(key_and_request, key_len, challenge, challenge_len, os_rng, NULL, key_and_request + 1,
                               PAT_TYPE5_REQUEST_LEN, st1, sizeof st1);
        CHECK(rc == -PAT_E_OVERLAP && memcmp(key_and_request, key, key_len) == 0, "request over the key: %d", rc);
    } else {
        CHECK(false, "a type-5 key of %zu bytes", key_len);
    }
    rc = pat_type5_request(NULL, key_len, challenge, challenge_len, os_rng, NULL, req1, sizeof req1, st1, sizeof st1);
    CHECK(rc == -PAT_E_NULL_POINTER, "NULL key: %d", rc);
    rc = pat_type5_request(key, key_len, challenge, challenge_len, os_rng, NULL, req1, sizeof req1 - 1, st1,
                           sizeof st1);
    CHECK(pat_error_kind(rc) == PAT_E_BUFFER_TOO_SMALL, "short request buffer: %d", rc);
    rc = pat_type5_request(key, key_len, challenge, challenge_len - 1, os_rng, NULL, req1, sizeof req1, st1,
                           sizeof st1);
    CHECK(pat_error_kind(rc) == PAT_E_TRUNCATED, "truncated challenge: %d", rc);
    rc = pat_type1_request(key, key_len, challenge, challenge_len, os_rng, NULL, req1, sizeof req1, st1, sizeof st1);
    CHECK(pat_error_kind(rc) == PAT_E_INVALID_LENGTH && pat_error_detail(rc) == PAT_FIELD_KEY,
          "a type-5 key for type 1: %d", rc);

    /* WWW-Authenticate: another scheme, then a PrivateToken challenge built
     * here; the decoded challenge and key are the bytes we encoded. */
    char header[1024], b64c[512], b64k[128];
    b64url(challenge, challenge_len, b64c);
    b64url(key, key_len, b64k);
    snprintf(header, sizeof header, "Basic realm=\"x\", PrivateToken challenge=\"%s\", token-key=\"%s\", max-age=\"10\"",
             b64c, b64k);
    uint8_t buf[PAT_CHALLENGE_BUFFER_SIZE];
    pat_challenge c;
    rc = pat_www_authenticate_challenge(header, strlen(header), 0, buf, sizeof buf, &c);
    CHECK(rc > 0 && c.token_type == 5 && c.has_max_age && c.max_age == 10, "challenge 0: %d", rc);
    CHECK(rc > 0 && (size_t)rc == challenge_len && c.challenge_len == challenge_len
              && memcmp(c.challenge, challenge, challenge_len) == 0,
          "decoded challenge (its length returned)");
    CHECK(rc > 0 && c.token_key_len == key_len && memcmp(c.token_key, key, key_len) == 0, "decoded token key");
    rc = pat_www_authenticate_challenge(header, strlen(header), 1, buf, sizeof buf, &c);
    CHECK(rc == 0 && c.challenge == NULL, "no challenge 1: %d", rc);
    rc = pat_www_authenticate_challenge("PrivateToken token-key=\"AAAA\"", 29, 0, buf, sizeof buf, &c);
    CHECK(pat_error_kind(rc) == PAT_E_MISSING_PARAMETER && pat_error_detail(rc) == PAT_FIELD_CHALLENGE,
          "missing challenge: %d", rc);

    /* The issuer directory: the key listed is the key selected, and its id
     * is the one inside the vector's token (token_input bytes 66..98). */
    char json[1024];
    snprintf(json, sizeof json,
             "{\"issuer-request-uri\":\"https://issuer.example/request\",\"token-keys\":[{\"token-type\":5,"
             "\"token-key\":\"%s\",\"not-before\":100}]}",
             b64k);
    uint8_t selected[64], key_id[PAT_KEY_ID_LEN];
    char uri[64];
    rc = pat_directory_select((const uint8_t *)json, strlen(json), 5, NULL, 200, NULL, 0, selected, sizeof selected,
                              uri, sizeof uri);
    CHECK(rc == (int32_t)key_len && memcmp(selected, key, key_len) == 0, "directory key: %d", rc);
    CHECK(strcmp(uri, "https://issuer.example/request") == 0, "directory uri");
    rc = pat_token_key_id(key, key_len, key_id, sizeof key_id);
    CHECK(rc == PAT_KEY_ID_LEN && token_len >= 98 && memcmp(key_id, vtoken + 66, PAT_KEY_ID_LEN) == 0,
          "token key id: %d", rc);
    rc = pat_directory_select((const uint8_t *)json, strlen(json), 5, key_id, 50, NULL, 0, selected,
                              sizeof selected, NULL, 0);
    CHECK(pat_error_kind(rc) == PAT_E_KEY_NOT_YET_VALID, "not yet valid: %d", rc);
    rc = pat_directory_select((const uint8_t *)json, strlen(json), 1, NULL, 200, NULL, 0, selected,
                              sizeof selected, NULL, 0);
    CHECK(pat_error_kind(rc) == PAT_E_NO_MATCHING_KEY, "no type-1 key: %d", rc);

    /* Type 0x0003: the client key of a secret, and a request's shape (the
     * Rust tests run it through an attester and issuer). */
    static const uint8_t secret[PAT_TYPE3_CLIENT_SECRET_LEN] = {[0] = 1};
    uint8_t client_key[PAT_TYPE3_CLIENT_KEY_LEN], zero_secret[PAT_TYPE3_CLIENT_SECRET_LEN] = {0};
    rc = pat_type3_client_key(secret, sizeof secret, client_key, sizeof client_key);
    CHECK(rc == PAT_TYPE3_CLIENT_KEY_LEN && (client_key[0] == 2 || client_key[0] == 3), "client key: %d", rc);
    rc = pat_type3_client_key(zero_secret, sizeof zero_secret, client_key, sizeof client_key);
    CHECK(pat_error_kind(rc) == PAT_E_INVALID_SCALAR, "zero secret: %d", rc);
    CHECK(pat_type3_request_len(14) == PAT_TYPE3_REQUEST_LEN_SHORT_NAME, "type-3 request length");

    /* Status codes read back. */
    char msg[128];
    rc = pat_error_message(-PAT_E_VERIFICATION, msg, sizeof msg);
    CHECK(rc > 0 && strcmp(msg, "verification failed") == 0, "message: %d %s", rc, msg);
    rc = pat_error_message(-PAT_E_VERIFICATION, msg, 4);
    CHECK(pat_error_kind(rc) == PAT_E_BUFFER_TOO_SMALL, "short message buffer: %d", rc);
    CHECK(pat_error_kind(-12345678) == -1, "no code");

    free(key);
    free(challenge);
    free(vtoken);
    free(text);
}

int main(int argc, char **argv) {
    api_checks();
    printf("api: %d passed, %d failed\n", passed, failed);
    bool ok = failed == 0;
    if (argc < 2) {
        printf("usage: %s VECTOR_FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        ok = run_file(argv[i]) && ok;
    }
    return ok ? 0 : 1;
}
