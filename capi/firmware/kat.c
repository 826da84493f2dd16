/*
 * The vector firmware: pat-go's issuance vectors for types 0x0001, 0x0002
 * and 0x0005 (and one case each of their amortized batches, 0xDA7A, 0xDA7B,
 * ACT, ATHM and ARC) through the C API on a Cortex-M4 with no allocator and no
 * libc. For each case, the deterministic request must give the vector's
 * TokenRequest and the finalize of the vector's TokenResponse its Token,
 * byte for byte, with the state zeroed after. Per type it also runs the
 * power-on self-test, one request with the test generator (kat.h) and one
 * `Authorization` value. One line per check, `N passed, M failed`, exit
 * status 0 only when every check passed. The peak stack (and instructions)
 * of request and finalize are printed as `stack TYPE/OP N` and `insns
 * TYPE/OP N` for scripts/capi-firmware.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kat_data.h"
#include "pat.h"
#include "probe.h"
#include "rt.h"

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define MAX3(a, b, c) MAX2(MAX2(a, b), c)

typedef int32_t (*request_fn)(const uint8_t *, size_t, const uint8_t *, size_t, pat_rng_fn, void *, uint8_t *,
                              size_t, uint8_t *, size_t);
typedef int32_t (*finalize_fn)(const uint8_t *, size_t, uint8_t *, size_t, const uint8_t *, size_t, uint8_t *,
                               size_t);

/* What differs between the token types, and the figures measured. */
struct kind {
    uint16_t type;
    const char *name;
    size_t request_len, state_len, token_len, authorization_size;
    request_fn request;
    finalize_fn finalize;
    int32_t (*self_test)(void);
    const struct kat_case *first;
    const char *authorization;
    struct probe peak_request, peak_finalize;
};

static struct kind kinds[] = {
    {1, "type1", PAT_TYPE1_REQUEST_LEN, PAT_TYPE1_STATE_LEN, PAT_TYPE1_TOKEN_LEN, PAT_TYPE1_AUTHORIZATION_SIZE,
     pat_type1_request, pat_type1_finalize, pat_self_test_type1, &kat_type1_case0, kat_type1_authorization,
     {0, 0, false}, {0, 0, false}},
    {2, "type2", PAT_TYPE2_REQUEST_LEN, PAT_TYPE2_STATE_LEN, PAT_TYPE2_TOKEN_LEN, PAT_TYPE2_AUTHORIZATION_SIZE,
     pat_type2_request, pat_type2_finalize, pat_self_test_type2, &kat_type2_case0, kat_type2_authorization,
     {0, 0, false}, {0, 0, false}},
    {5, "type5", PAT_TYPE5_REQUEST_LEN, PAT_TYPE5_STATE_LEN, PAT_TYPE5_TOKEN_LEN, PAT_TYPE5_AUTHORIZATION_SIZE,
     pat_type5_request, pat_type5_finalize, pat_self_test_type5, &kat_type5_case0, kat_type5_authorization,
     {0, 0, false}, {0, 0, false}},
};
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])

/* Outside every frame, so the measured stack is the library's alone (as
 * in the Rust runner, whose results live in the caller's frame). */
static uint8_t request[MAX3(PAT_TYPE1_REQUEST_LEN, PAT_TYPE2_REQUEST_LEN, PAT_TYPE5_REQUEST_LEN)];
static uint8_t state[MAX3(PAT_TYPE1_STATE_LEN, PAT_TYPE2_STATE_LEN, PAT_TYPE5_STATE_LEN)];
static uint8_t token[MAX3(PAT_TYPE1_TOKEN_LEN, PAT_TYPE2_TOKEN_LEN, PAT_TYPE5_TOKEN_LEN)];
static char authorization[MAX3(PAT_TYPE1_AUTHORIZATION_SIZE, PAT_TYPE2_AUTHORIZATION_SIZE,
                               PAT_TYPE5_AUTHORIZATION_SIZE)];

static unsigned passed, failed;

static bool same(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            return false;
        }
    }
    return true;
}

static bool all_zero(const uint8_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i] != 0) {
            return false;
        }
    }
    return true;
}

static bool returned(int32_t rc, size_t len)
{
    return rc >= 0 && (size_t)rc == len;
}

/* One line per check: `what ok`, or `what FAIL: why (rc, message)`. */
static void verdict(const char *why, int32_t rc)
{
    if (why == NULL) {
        passed++;
        rt_put(" ok");
    } else {
        failed++;
        rt_put(" FAIL: ");
        rt_put(why);
        rt_put(" (rc ");
        rt_put_i32(rc);
        char message[128];
        if (rc < 0 && pat_error_message(rc, message, sizeof message) >= 0) {
            rt_put(": ");
            rt_put(message);
        }
        rt_put(")");
    }
    rt_line();
}

static void keep_peak(struct probe *peak, const struct probe *p)
{
    peak->stack = MAX2(peak->stack, p->stack);
    peak->insns = MAX2(peak->insns, p->insns);
}

/* The arguments of a measured call. */
struct call {
    const struct kind *kind;
    const struct kat_case *c;
    struct test_rng *rng;
};

static int32_t op_request(void *ctx)
{
    const struct call *x = ctx;
    const struct kat_case *c = x->c;
    return x->kind->request(c->pk.p, c->pk.n, c->challenge.p, c->challenge.n, test_rng, x->rng, request,
                            x->kind->request_len, state, x->kind->state_len);
}

static int32_t op_finalize(void *ctx)
{
    const struct call *x = ctx;
    const struct kat_case *c = x->c;
    return x->kind->finalize(c->pk.p, c->pk.n, state, x->kind->state_len, c->response.p, c->response.n, token,
                             x->kind->token_len);
}

static int32_t request_with(const struct kind *k, const struct kat_case *c)
{
    switch (k->type) {
    case 1:
        return pat_type1_request_with(c->pk.p, c->pk.n, c->challenge.p, c->challenge.n, c->nonce.p, c->nonce.n,
                                      c->blind.p, c->blind.n, request, k->request_len, state, k->state_len);
    case 2:
        return pat_type2_request_with(c->pk.p, c->pk.n, c->challenge.p, c->challenge.n, c->nonce.p, c->nonce.n,
                                      c->salt.p, c->salt.n, c->blind.p, c->blind.n, request, k->request_len,
                                      state, k->state_len);
    case 5:
        return pat_type5_request_with(c->pk.p, c->pk.n, c->challenge.p, c->challenge.n, c->nonce.p, c->nonce.n,
                                      c->blind.p, c->blind.n, request, k->request_len, state, k->state_len);
    default:
        return -PAT_E_UNKNOWN_TOKEN_TYPE;
    }
}

static struct kind *kind_of(uint16_t type)
{
    for (size_t i = 0; i < KIND_COUNT; i++) {
        if (kinds[i].type == type) {
            return &kinds[i];
        }
    }
    return NULL;
}

/* A vector case: the known-answer request, then the finalize (measured). */
static void known_answer(const struct kat_case *c)
{
    rt_put("kat ");
    rt_put_hex16(c->type);
    rt_put(" ");
    rt_put(c->file);
    rt_put(" #");
    rt_put_u64(c->index);
    struct kind *k = kind_of(c->type);
    if (k == NULL) {
        verdict("no such token type here", 0);
        return;
    }
    int32_t rc = request_with(k, c);
    if (!returned(rc, c->request.n) || !same(request, c->request.p, c->request.n)) {
        verdict("token_request differs", rc);
        return;
    }
    struct call call = {k, c, NULL};
    struct probe p;
    rc = probe_measure(op_finalize, &call, &p);
    keep_peak(&k->peak_finalize, &p);
    if (p.overflow) {
        verdict("stack overflow", rc);
    } else if (!returned(rc, c->token.n) || !same(token, c->token.p, c->token.n)) {
        verdict("token differs", rc);
    } else if (!all_zero(state, k->state_len)) {
        verdict("state not zeroed after finalize", rc);
    } else {
        verdict(NULL, rc);
    }
}

/* A request's verdict: the stack probe's, then `fault` (NULL when the
 * request's bytes passed the caller's checks), then pat_wipe on its state. */
static void request_verdict(const struct probe *p, int32_t rc, const char *fault, uint8_t *state, size_t state_len)
{
    if (p->overflow) {
        verdict("stack overflow", rc);
    } else if (fault != NULL) {
        verdict(fault, rc);
    } else {
        pat_wipe(state, state_len);
        verdict(all_zero(state, state_len) ? NULL : "pat_wipe left bytes", rc);
    }
}

/* A request through the randomness callback (measured) on the type's
 * first case: the vector's token type and key id lead it, the fresh nonce
 * and blind make it differ from the vector's, and pat_wipe clears the state. */
static void random_request(struct kind *k)
{
    rt_put("random request ");
    rt_put_hex16(k->type);
    const struct kat_case *c = k->first;
    struct test_rng rng = {0x9E3779B9u, 0};
    struct call call = {k, c, &rng};
    struct probe p;
    int32_t rc = probe_measure(op_request, &call, &p);
    keep_peak(&k->peak_request, &p);
    const char *fault = NULL;
    if (!returned(rc, k->request_len) || k->request_len != c->request.n) {
        fault = "wrong length";
    } else if (rng.bytes == 0) {
        fault = "the callback was never called";
    } else if (!same(request, c->request.p, 3)) {
        fault = "token type or key id differs from the vector's";
    } else if (same(request, c->request.p, c->request.n) || all_zero(state, k->state_len)) {
        fault = "request repeats the vector's or the state is empty";
    }
    request_verdict(&p, rc, fault, state, k->state_len);
}

static size_t length(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0') {
        n++;
    }
    return n;
}

/* The Authorization value of the type's first vector token, against the
 * value gen_kat.py built from the same token. */
static void authorization_value(const struct kind *k)
{
    rt_put("authorization ");
    rt_put_hex16(k->type);
    const struct kat_case *c = k->first;
    size_t n = length(k->authorization);
    int32_t rc = pat_authorization(c->token.p, c->token.n, authorization, k->authorization_size);
    bool ok = returned(rc, n) && same((const uint8_t *)authorization, (const uint8_t *)k->authorization, n + 1);
    verdict(ok ? NULL : "value differs", rc);
}

static void self_test(const struct kind *k)
{
    rt_put("self-test ");
    rt_put_hex16(k->type);
    int32_t rc = k->self_test();
    verdict(rc == PAT_OK ? NULL : "failed", rc);
}

static void figure(const char *what, const char *name, const char *op, uint64_t value)
{
    rt_put(what);
    rt_put(" ");
    rt_put(name);
    rt_put("/");
    rt_put(op);
    rt_put(" ");
    rt_put_u64(value);
    rt_line();
}

/* ---- Types with public metadata: 0xDA7A and 0xDA7B ---------------------- */

/* Their request, finalize and Authorization-size calls share signatures;
 * the deterministic request differs (0xDA7A takes a salt) and is wrapped. */
struct ext_kind {
    const char *name; /* the figures' name: typeda7a */
    const char *label; /* in the verdict lines: 0xda7a */
    const char *source; /* the known answer's file and case */
    const struct ext_kat *v;
    const char *authorization;
    size_t state_len, token_len;
    int32_t (*request)(const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, size_t, pat_rng_fn, void *,
                       uint8_t *, size_t, uint8_t *, size_t);
    int32_t (*request_with)(const struct ext_kat *v, uint8_t *request, uint8_t *state);
    int32_t (*finalize)(const uint8_t *, size_t, uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, size_t,
                        uint8_t *, size_t);
    int32_t (*authorization_size)(size_t);
    struct test_rng rng;
    struct probe peak_request, peak_finalize;
};

/* Outside every frame, sized for 0xDA7A (the larger of the two). */
static uint8_t ext_request[PAT_TYPEDA7A_REQUEST_FIXED_LEN + 64];
static uint8_t ext_state[PAT_TYPEDA7A_STATE_LEN];
static uint8_t ext_token[PAT_TYPEDA7A_TOKEN_LEN];
static char ext_auth[1024];

static int32_t da7a_request_with(const struct ext_kat *v, uint8_t *request, uint8_t *state)
{
    return pat_typeda7a_request_with(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, v->extensions.p,
                                     v->extensions.n, v->nonce.p, v->nonce.n, v->salt.p, v->salt.n, v->blind.p,
                                     v->blind.n, request, v->request.n, state, PAT_TYPEDA7A_STATE_LEN);
}

static int32_t da7b_request_with(const struct ext_kat *v, uint8_t *request, uint8_t *state)
{
    return pat_typeda7b_request_with(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, v->extensions.p,
                                     v->extensions.n, v->nonce.p, v->nonce.n, v->blind.p, v->blind.n, request,
                                     v->request.n, state, PAT_TYPEDA7B_STATE_LEN);
}

static struct ext_kind ext_kinds[] = {
    {"typeda7a", "0xda7a", "privacypass-ts pub_verif_with_metadata_v3.json #0", &da7a_kat, da7a_authorization,
     PAT_TYPEDA7A_STATE_LEN, PAT_TYPEDA7A_TOKEN_LEN, pat_typeda7a_request, da7a_request_with, pat_typeda7a_finalize,
     pat_typeda7a_authorization_size, {0xDA7A5EEDu, 0}, {0}, {0}},
    {"typeda7b", "0xda7b", "pat type-da7b-issuance-test-vectors.json #0", &da7b_kat, da7b_authorization,
     PAT_TYPEDA7B_STATE_LEN, PAT_TYPEDA7B_TOKEN_LEN, pat_typeda7b_request, da7b_request_with, pat_typeda7b_finalize,
     pat_typeda7b_authorization_size, {0xDA7B5EEDu, 0}, {0}, {0}},
};
#define EXT_KIND_COUNT (sizeof ext_kinds / sizeof ext_kinds[0])

static int32_t op_ext_request(void *ctx)
{
    struct ext_kind *k = ctx;
    const struct ext_kat *v = k->v;
    return k->request(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, v->extensions.p, v->extensions.n, test_rng,
                      &k->rng, ext_request, v->request.n, ext_state, k->state_len);
}

static int32_t op_ext_finalize(void *ctx)
{
    const struct ext_kind *k = ctx;
    const struct ext_kat *v = k->v;
    return k->finalize(v->pk.p, v->pk.n, ext_state, k->state_len, v->extensions.p, v->extensions.n, v->response.p,
                       v->response.n, ext_token, k->token_len);
}

/* The vector's case: the known-answer request, then the finalize
 * (measured) gives its token and zeroes the state. */
static void ext_known_answer(struct ext_kind *k)
{
    rt_put("known answer ");
    rt_put(k->label);
    rt_put(" ");
    rt_put(k->source);
    const struct ext_kat *v = k->v;
    if (v->request.n > sizeof ext_request || k->state_len > sizeof ext_state || k->token_len > sizeof ext_token) {
        verdict("request, state or token longer than its buffer", 0);
        return;
    }
    int32_t rc = k->request_with(v, ext_request, ext_state);
    if (!returned(rc, v->request.n) || !same(ext_request, v->request.p, v->request.n)) {
        verdict("token_request differs", rc);
        return;
    }
    struct probe p;
    rc = probe_measure(op_ext_finalize, k, &p);
    keep_peak(&k->peak_finalize, &p);
    if (p.overflow) {
        verdict("stack overflow", rc);
    } else if (!returned(rc, v->token.n) || !same(ext_token, v->token.p, v->token.n)) {
        verdict("token differs", rc);
    } else {
        verdict(all_zero(ext_state, k->state_len) ? NULL : "state not zeroed after finalize", rc);
    }
}

/* A request through the callback (measured): the vector's type and key id
 * lead it, the rest differs from the vector's. */
static void ext_random_request(struct ext_kind *k)
{
    rt_put("random request ");
    rt_put(k->label);
    const struct ext_kat *v = k->v;
    struct probe p;
    uint32_t before = k->rng.bytes;
    int32_t rc = probe_measure(op_ext_request, k, &p);
    keep_peak(&k->peak_request, &p);
    bool ok = v->request.n <= sizeof ext_request && returned(rc, v->request.n) && k->rng.bytes != before &&
              same(ext_request, v->request.p, 3) &&
              !same(ext_request, v->request.p, v->request.n);
    request_verdict(&p, rc, ok ? NULL : "wrong length, no randomness, or the vector's request", ext_state,
                    k->state_len);
}

/* `PrivateToken token="…", extensions="…"` of the vector's token, against
 * the value gen_kat.py built. */
static void ext_authorization_value(const struct ext_kind *k)
{
    rt_put("authorization ");
    rt_put(k->label);
    const struct ext_kat *v = k->v;
    int32_t size = k->authorization_size(v->extensions.n);
    size_t n = length(k->authorization);
    if (size <= 0 || (size_t)size > sizeof ext_auth) {
        verdict("authorization size", size);
        return;
    }
    int32_t rc = pat_authorization_with_extensions(v->token.p, v->token.n, v->extensions.p, v->extensions.n,
                                                   ext_auth, (size_t)size);
    bool ok = returned(rc, n) && same((const uint8_t *)ext_auth, (const uint8_t *)k->authorization, n + 1);
    verdict(ok ? NULL : "value differs", rc);
}

/* ---- Amortized batches of types 0x0001 and 0x0005 ------------------------ */

typedef int32_t (*batch_with_fn)(const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, size_t,
                                 const uint8_t *, size_t, uint8_t *, size_t, uint8_t *, size_t);
typedef int32_t (*batch_request_fn)(const uint8_t *, size_t, const uint8_t *, size_t, size_t, pat_rng_fn, void *,
                                    uint8_t *, size_t, uint8_t *, size_t);

struct batch_kind {
    const char *name; /* the figures' name */
    const struct batch_kat *v;
    const size_t *count;
    size_t state_len;
    batch_with_fn request_with;
    batch_request_fn request;
    finalize_fn finalize;
    struct test_rng rng;
    struct probe peak_request, peak_finalize;
};

/* Outside every frame, sized for the larger of the two types. */
static uint8_t batch_request[512];
static uint8_t batch_state[MAX2(PAT_TYPE1_BATCH_STATE_LEN, PAT_TYPE5_BATCH_STATE_LEN)];
static uint8_t batch_tokens[PAT_BATCH_MAX * MAX2(PAT_TYPE1_TOKEN_LEN, PAT_TYPE5_TOKEN_LEN)];

static struct batch_kind batch_kinds[] = {
    {"type1_batch", &batch1_kat, &batch1_count, PAT_TYPE1_BATCH_STATE_LEN, pat_type1_request_batch_with,
     pat_type1_request_batch, pat_type1_finalize_batch, {0xBA7C0001u, 0}, {0}, {0}},
    {"type5_batch", &batch5_kat, &batch5_count, PAT_TYPE5_BATCH_STATE_LEN, pat_type5_request_batch_with,
     pat_type5_request_batch, pat_type5_finalize_batch, {0xBA7C0005u, 0}, {0}, {0}},
};
#define BATCH_KIND_COUNT (sizeof batch_kinds / sizeof batch_kinds[0])

static int32_t op_batch_request(void *ctx)
{
    struct batch_kind *k = ctx;
    const struct batch_kat *v = k->v;
    return k->request(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, *k->count, test_rng, &k->rng, batch_request,
                      v->request.n, batch_state, k->state_len);
}

static int32_t op_batch_finalize(void *ctx)
{
    const struct batch_kind *k = ctx;
    const struct batch_kat *v = k->v;
    return k->finalize(v->pk.p, v->pk.n, batch_state, k->state_len, v->response.p, v->response.n, batch_tokens,
                       v->tokens.n);
}

/* pat-go's first batch: the request from its nonces and blinds, then the
 * finalize (measured) gives its tokens and zeroes the state. */
static void batch_known_answer(struct batch_kind *k)
{
    rt_put("known answer ");
    rt_put(k->name);
    const struct batch_kat *v = k->v;
    if (v->request.n > sizeof batch_request || v->tokens.n > sizeof batch_tokens) {
        verdict("vector sizes", 0);
        return;
    }
    int32_t rc = k->request_with(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, v->nonces.p, v->nonces.n,
                                 v->blinds.p, v->blinds.n, batch_request, v->request.n, batch_state, k->state_len);
    if (!returned(rc, v->request.n) || !same(batch_request, v->request.p, v->request.n)) {
        verdict("token_request differs", rc);
        return;
    }
    struct probe p;
    rc = probe_measure(op_batch_finalize, k, &p);
    keep_peak(&k->peak_finalize, &p);
    if (p.overflow) {
        verdict("stack overflow", rc);
    } else if (!returned(rc, v->tokens.n) || !same(batch_tokens, v->tokens.p, v->tokens.n)) {
        verdict("tokens differ", rc);
    } else {
        verdict(all_zero(batch_state, k->state_len) ? NULL : "state not zeroed after finalize", rc);
    }
}

/* A batch of the vector's size through the callback (measured). */
static void batch_random_request(struct batch_kind *k)
{
    rt_put("random request ");
    rt_put(k->name);
    const struct batch_kat *v = k->v;
    struct probe p;
    uint32_t before = k->rng.bytes;
    int32_t rc = probe_measure(op_batch_request, k, &p);
    keep_peak(&k->peak_request, &p);
    bool ok = returned(rc, v->request.n) && k->rng.bytes != before && same(batch_request, v->request.p, 3) &&
              !same(batch_request, v->request.p, v->request.n);
    request_verdict(&p, rc, ok ? NULL : "wrong length, no randomness, or the vector's request", batch_state,
                    k->state_len);
}

/* ---- A generic batch (types 0x0001 and 0x0002 mixed) --------------------- */

static pat_batch_entry generic_entries[PAT_BATCH_MAX];
static uint8_t generic_request[PAT_GENERIC_BATCH_REQUEST_MAX_LEN];
static uint8_t generic_state[PAT_GENERIC_BATCH_STATE_LEN];
static uint8_t generic_tokens[PAT_GENERIC_BATCH_TOKENS_MAX_LEN];
static size_t generic_lens[PAT_BATCH_MAX];
static struct probe generic_peak_request, generic_peak_finalize;
static struct test_rng generic_rng = {0xBA7C0002u, 0};

static int32_t op_generic_request(void *ctx)
{
    (void)ctx;
    return pat_generic_batch_request(generic_entries, generic_count, test_rng, &generic_rng, generic_request,
                                     generic_kat.request.n, generic_state, sizeof generic_state);
}

static int32_t op_generic_finalize(void *ctx)
{
    (void)ctx;
    return pat_generic_batch_finalize(generic_entries, generic_count, generic_state, sizeof generic_state,
                                      generic_kat.response.p, generic_kat.response.n, generic_tokens,
                                      generic_kat.tokens.n, generic_lens);
}

/* pat-go's mixed batch: the request from its randomness, then the finalize
 * (measured) gives each entry's token and length and zeroes the state. */
static void generic_known_answer(void)
{
    rt_put("known answer generic_batch");
    if (generic_count > PAT_BATCH_MAX || generic_kat.request.n > sizeof generic_request ||
        generic_kat.tokens.n > sizeof generic_tokens) {
        verdict("vector sizes", 0);
        return;
    }
    for (size_t i = 0; i < generic_count; i++) {
        generic_entries[i] = (pat_batch_entry){generic_challenges[i].p, generic_challenges[i].n, generic_keys[i].p,
                                               generic_keys[i].n};
    }
    int32_t rc = pat_generic_batch_request_with(generic_entries, generic_count, generic_kat.randomness.p,
                                                generic_kat.randomness.n, generic_request, generic_kat.request.n,
                                                generic_state, sizeof generic_state);
    if (!returned(rc, generic_kat.request.n) ||
        !same(generic_request, generic_kat.request.p, generic_kat.request.n)) {
        verdict("token_request differs", rc);
        return;
    }
    struct probe p;
    rc = probe_measure(op_generic_finalize, NULL, &p);
    keep_peak(&generic_peak_finalize, &p);
    bool lens = true;
    for (size_t i = 0; i < generic_count; i++) {
        lens = lens && generic_lens[i] == generic_token_lens[i];
    }
    if (p.overflow) {
        verdict("stack overflow", rc);
    } else if (!returned(rc, generic_kat.tokens.n) || !lens ||
               !same(generic_tokens, generic_kat.tokens.p, generic_kat.tokens.n)) {
        verdict("tokens differ", rc);
    } else {
        verdict(all_zero(generic_state, sizeof generic_state) ? NULL : "state not zeroed after finalize", rc);
    }
}

/* The same entries through the callback (measured): the vector's length,
 * not its bytes. */
static void generic_random_request(void)
{
    rt_put("random request generic_batch");
    struct probe p;
    uint32_t before = generic_rng.bytes;
    int32_t rc = probe_measure(op_generic_request, NULL, &p);
    keep_peak(&generic_peak_request, &p);
    bool ok = returned(rc, generic_kat.request.n) && generic_rng.bytes != before &&
              same(generic_request, generic_kat.request.p, 4) &&
              !same(generic_request, generic_kat.request.p, generic_kat.request.n);
    request_verdict(&p, rc, ok ? NULL : "wrong length, no randomness, or the vector's request", generic_state,
                    sizeof generic_state);
}

/* ---- The origin's check of a type-0x0002 token ---------------------------- */

static struct probe verify_peak;

static int32_t op_type2_verify(void *ctx)
{
    const struct kat_case *c = ctx;
    return pat_type2_verify(c->pk.p, c->pk.n, c->challenge.p, c->challenge.n, c->token.p, c->token.n);
}

/* pat-go's first type-2 token verifies as an origin verifies it (measured). */
static void type2_origin_verify(void)
{
    rt_put("origin verify type2");
    struct probe p;
    int32_t rc = probe_measure(op_type2_verify, (void *)&kat_type2_case0, &p);
    keep_peak(&verify_peak, &p);
    verdict(p.overflow ? "stack overflow" : rc != 0 ? "the token does not verify" : NULL, rc);
}

/* ---- ACT (type 0xE5AD, draft-schlesinger-privacypass-act-01, L = 8) ------ */

static uint8_t act_run[4096];
static uint8_t act_request[PAT_ACT_REQUEST_LEN];
static uint8_t act_state[PAT_ACT_REQUEST_STATE_LEN];
static uint8_t act_credential[PAT_ACT_CREDENTIAL_LEN];
static uint8_t act_refund_state[PAT_ACT_REFUND_STATE_LEN];
static struct probe act_peak_request, act_peak_finalize, act_peak_refund;
static struct test_rng act_rng = {0xE5AD5EEDu, 0};
/* An ACT TokenChallenge: type, issuer_name, then an empty redemption
 * context, origin_info and credential_context. */
static const uint8_t act_challenge[] = {0xE5, 0xAD, 0, 14, 'i', 's', 's', 'u', 'e', 'r', '.', 'e', 'x', 'a', 'm',
                                        'p',  'l',  'e', 0, 0, 0, 0};

static int32_t op_act_request(void *ctx)
{
    (void)ctx;
    const struct act_kat *v = &act_kat;
    return pat_act_request(v->domain_separator.p, v->domain_separator.n, v->token_key.p, v->token_key.n,
                           act_challenge, sizeof act_challenge, test_rng, &act_rng, act_request, sizeof act_request,
                           act_state, sizeof act_state);
}

static int32_t op_act_finalize(void *ctx)
{
    (void)ctx;
    const struct act_kat *v = &act_kat;
    return pat_act_finalize(v->domain_separator.p, v->domain_separator.n, v->token_key.p, v->token_key.n, 8,
                            act_state, sizeof act_state, v->response.p, v->response.n, act_credential,
                            sizeof act_credential);
}

static int32_t op_act_refund(void *ctx)
{
    (void)ctx;
    const struct act_kat *v = &act_kat;
    return pat_act_refund(v->domain_separator.p, v->domain_separator.n, v->token_key.p, v->token_key.n, 8,
                          act_refund_state, sizeof act_refund_state, v->token.p, v->token.n, v->refund.p,
                          v->refund.n, act_credential, sizeof act_credential);
}

/* The appendix's whole run through pat_act_run_with, byte for byte. */
static void act_known_run(void)
{
    rt_put("act run_with (the appendix)");
    const struct act_kat *v = &act_kat;
    if (v->run.n > sizeof act_run) {
        verdict("run longer than the buffer", 0);
        return;
    }
    int32_t rc = pat_act_run_with(v->seed.p, v->seed.n, v->domain_separator.p, v->domain_separator.n, 8, v->ctx.p,
                                  v->ctx.n, act_numbers[0], act_numbers[1], act_numbers[2], act_run, v->run.n);
    verdict(returned(rc, v->run.n) && same(act_run, v->run.p, v->run.n) ? NULL : "run differs", rc);
}

/* The appendix's response finalized (measured) from its request state into
 * its credential, then its refund (measured) into the next credential,
 * whose balance pat_act_credits reads. */
static void act_client_calls(void)
{
    rt_put("act finalize and refund (the appendix)");
    const struct act_kat *v = &act_kat;
    if (v->state.n != sizeof act_state || v->refund_state.n != sizeof act_refund_state) {
        verdict("vector sizes", 0);
        return;
    }
    for (size_t i = 0; i < sizeof act_state; i++) {
        act_state[i] = v->state.p[i];
    }
    struct probe p;
    int32_t rc = probe_measure(op_act_finalize, NULL, &p);
    keep_peak(&act_peak_finalize, &p);
    if (p.overflow || !returned(rc, v->credential.n) || !same(act_credential, v->credential.p, v->credential.n) ||
        !all_zero(act_state, sizeof act_state)) {
        verdict(p.overflow ? "stack overflow" : "credential differs or state kept", rc);
        return;
    }
    for (size_t i = 0; i < sizeof act_refund_state; i++) {
        act_refund_state[i] = v->refund_state.p[i];
    }
    rc = probe_measure(op_act_refund, NULL, &p);
    keep_peak(&act_peak_refund, &p);
    uint64_t credits = 0;
    int32_t crc = pat_act_credits(act_credential, sizeof act_credential, 8, &credits);
    if (p.overflow) {
        verdict("stack overflow", rc);
    } else if (!returned(rc, v->next.n) || !same(act_credential, v->next.p, v->next.n) || crc != 0 ||
               credits != act_numbers[3] || !all_zero(act_refund_state, sizeof act_refund_state)) {
        verdict("next credential, its balance or the wiped state differs", rc);
    } else {
        verdict(NULL, rc);
    }
}

/* A credential request through the callback (measured). */
static void act_random_request(void)
{
    rt_put("act random request");
    struct probe p;
    uint32_t before = act_rng.bytes;
    int32_t rc = probe_measure(op_act_request, NULL, &p);
    keep_peak(&act_peak_request, &p);
    bool ok = returned(rc, sizeof act_request) && act_rng.bytes != before && act_request[0] == 0xE5 &&
              act_request[1] == 0xAD && !all_zero(act_state, sizeof act_state);
    request_verdict(&p, rc, ok ? NULL : "wrong length, no randomness or an empty state", act_state, sizeof act_state);
}

/* ---- ATHM (type 0xC07E, draft-yun-privacypass-athm-00, 4 buckets) ------ */

static uint8_t athm_request[PAT_ATHM_REQUEST_LEN];
static uint8_t athm_state[PAT_ATHM_STATE_LEN];
static uint8_t athm_token[PAT_ATHM_TOKEN_LEN];
static char athm_auth[PAT_ATHM_AUTHORIZATION_SIZE];
static struct probe athm_peak_request, athm_peak_finalize;
static struct test_rng athm_rng = {0xC07E5EEDu, 0};

static int32_t op_athm_request(void *ctx)
{
    (void)ctx;
    const struct athm_kat *v = &athm_kat;
    return pat_athm_request(v->deployment_id.p, v->deployment_id.n, v->token_key.p, v->token_key.n, test_rng,
                            &athm_rng, athm_request, sizeof athm_request, athm_state, sizeof athm_state);
}

/* The finalize of the reference's finalize_token procedure, its ChaCha20
 * replayed from the procedure's seed. */
static int32_t op_athm_finalize(void *ctx)
{
    (void)ctx;
    const struct athm_kat *v = &athm_kat;
    return pat_athm_finalize_with(v->deployment_id.p, v->deployment_id.n, v->token_key.p, v->token_key.n,
                                  athm_state, sizeof athm_state, v->response.p, v->response.n, v->finalize_seed.p,
                                  v->finalize_seed.n, athm_token, sizeof athm_token);
}

/* The reference's token_request (request and state byte for byte), then
 * its finalize_token (measured): the token byte for byte, the state zeroed. */
static void athm_known_answer(void)
{
    rt_put("known answer athm (the reference's token_request, finalize_token)");
    const struct athm_kat *v = &athm_kat;
    if (v->request.n != sizeof athm_request || v->state.n != sizeof athm_state || v->token.n != sizeof athm_token) {
        verdict("vector sizes", 0);
        return;
    }
    int32_t rc = pat_athm_request_with(v->deployment_id.p, v->deployment_id.n, v->token_key.p, v->token_key.n,
                                       v->request_seed.p, v->request_seed.n, athm_request, sizeof athm_request,
                                       athm_state, sizeof athm_state);
    if (!returned(rc, v->request.n) || !same(athm_request, v->request.p, v->request.n) ||
        !same(athm_state, v->request_state.p, v->request_state.n)) {
        verdict("token_request or state differs", rc);
        return;
    }
    for (size_t i = 0; i < sizeof athm_state; i++) {
        athm_state[i] = v->state.p[i];
    }
    struct probe p;
    rc = probe_measure(op_athm_finalize, NULL, &p);
    keep_peak(&athm_peak_finalize, &p);
    if (p.overflow) {
        verdict("stack overflow", rc);
    } else if (!returned(rc, v->token.n) || !same(athm_token, v->token.p, v->token.n)) {
        verdict("token differs", rc);
    } else {
        verdict(all_zero(athm_state, sizeof athm_state) ? NULL : "state not zeroed after finalize", rc);
    }
}

/* A request through the callback (measured): the type and key id lead it,
 * T differs from the vector's. */
static void athm_random_request(void)
{
    rt_put("random request athm");
    const struct athm_kat *v = &athm_kat;
    struct probe p;
    uint32_t before = athm_rng.bytes;
    int32_t rc = probe_measure(op_athm_request, NULL, &p);
    keep_peak(&athm_peak_request, &p);
    bool ok = returned(rc, v->request.n) && athm_rng.bytes != before && same(athm_request, v->request.p, 3) &&
              !same(athm_request, v->request.p, v->request.n);
    request_verdict(&p, rc, ok ? NULL : "wrong length, no randomness, or the vector's request", athm_state,
                    sizeof athm_state);
}

/* `PrivateToken token="…"` of the vector's token, against gen_kat.py's. */
static void athm_authorization_value(void)
{
    rt_put("authorization athm");
    const struct athm_kat *v = &athm_kat;
    size_t n = length(athm_authorization);
    int32_t rc = pat_authorization(v->token.p, v->token.n, athm_auth, sizeof athm_auth);
    bool ok = returned(rc, n) && same((const uint8_t *)athm_auth, (const uint8_t *)athm_authorization, n + 1);
    verdict(ok ? NULL : "value differs", rc);
}

/* ---- ARC (type 0xE5AC, draft-ietf-privacypass-arc-crypto-01) ---------- */

/* Outside every frame, as the other types' buffers. */
static uint8_t arc_run[1200 + 2 * 486];
static uint8_t arc_request[PAT_ARC_REQUEST_LEN];
static uint8_t arc_state[PAT_ARC_REQUEST_STATE_LEN];
static uint8_t arc_credential[PAT_ARC_CREDENTIAL_LEN];
static uint8_t arc_presentation_state[PAT_ARC_PRESENTATION_STATE_LEN];
static uint8_t arc_token[PAT_ARC_TOKEN_MAX_LEN];
static struct probe arc_peak_request, arc_peak_finalize, arc_peak_token;
static struct test_rng arc_rng = {0x2545F491u, 0};

static int32_t op_arc_request(void *ctx)
{
    (void)ctx;
    return pat_arc_request(arc_kat.pk.p, arc_kat.pk.n, arc_kat.challenge.p, arc_kat.challenge.n, test_rng, &arc_rng,
                           arc_request, sizeof arc_request, arc_state, sizeof arc_state);
}

static int32_t op_arc_finalize(void *ctx)
{
    (void)ctx;
    return pat_arc_finalize(arc_kat.pk.p, arc_kat.pk.n, arc_state, sizeof arc_state, arc_kat.response.p,
                            arc_kat.response.n, arc_credential, sizeof arc_credential);
}

static int32_t op_arc_token(void *ctx)
{
    (void)ctx;
    return pat_arc_token(arc_kat.pk.p, arc_kat.pk.n, arc_presentation_state, sizeof arc_presentation_state,
                         arc_kat.challenge.p, arc_kat.challenge.n, test_rng, &arc_rng, arc_token, sizeof arc_token);
}

/* The draft's whole protocol from its generator (hazmat pat_arc_run_with):
 * keys, request, response, credential and both presentations of limit 2,
 * byte for byte. */
static void arc_known_answer(void)
{
    rt_put("arc run_with (the draft's vectors)");
    const struct arc_kat *v = &arc_kat;
    int32_t rc = pat_arc_run_with(v->seed.p, v->seed.n, v->request_context.p, v->request_context.n,
                                  v->presentation_context.p, v->presentation_context.n, 2, 2, arc_run, sizeof arc_run);
    bool ok = v->run.n == sizeof arc_run && returned(rc, sizeof arc_run) && same(arc_run, v->run.p, v->run.n);
    verdict(ok ? NULL : "differs", rc);
}

/* The vector's request state and response give the vector's credential
 * (measured), and the state is zeroed after. */
static void arc_finalize(void)
{
    rt_put("arc finalize (the draft's response)");
    if (arc_kat.state.n != sizeof arc_state) {
        verdict("state length", 0);
        return;
    }
    for (size_t i = 0; i < sizeof arc_state; i++) {
        arc_state[i] = arc_kat.state.p[i];
    }
    struct probe p;
    int32_t rc = probe_measure(op_arc_finalize, NULL, &p);
    keep_peak(&arc_peak_finalize, &p);
    if (p.overflow) {
        verdict("stack overflow", rc);
    } else if (!returned(rc, sizeof arc_credential) || arc_kat.credential.n != sizeof arc_credential ||
               !same(arc_credential, arc_kat.credential.p, sizeof arc_credential)) {
        verdict("credential differs", rc);
    } else {
        verdict(all_zero(arc_state, sizeof arc_state) ? NULL : "state not zeroed after finalize", rc);
    }
}

/* A credential request through the callback (measured). */
static void arc_random_request(void)
{
    rt_put("arc random request");
    struct probe p;
    uint32_t before = arc_rng.bytes;
    int32_t rc = probe_measure(op_arc_request, NULL, &p);
    keep_peak(&arc_peak_request, &p);
    bool ok = returned(rc, sizeof arc_request) && arc_rng.bytes != before && !all_zero(arc_state, sizeof arc_state);
    request_verdict(&p, rc, ok ? NULL : "wrong length, no randomness or an empty state", arc_state, sizeof arc_state);
}

/* The vector's credential under limit 2: two tokens (measured), two
 * different tags, and a third refused. */
static void arc_tokens(void)
{
    rt_put("arc tokens (limit 2)");
    int32_t rc = pat_arc_presentation_state(arc_kat.pk.p, arc_kat.pk.n, arc_kat.credential.p, arc_kat.credential.n,
                                            arc_kat.challenge.p, arc_kat.challenge.n, 2, arc_presentation_state,
                                            sizeof arc_presentation_state);
    if (!returned(rc, sizeof arc_presentation_state)) {
        verdict("presentation state", rc);
        return;
    }
    int32_t len = pat_arc_token_len(2);
    static uint8_t first[PAT_ARC_TOKEN_MAX_LEN];
    for (int i = 0; i < 2; i++) {
        struct probe p;
        rc = probe_measure(op_arc_token, NULL, &p);
        keep_peak(&arc_peak_token, &p);
        if (p.overflow || len <= 0 || !returned(rc, (size_t)len)) {
            verdict(p.overflow ? "stack overflow" : "token length", rc);
            return;
        }
        if (i == 0) {
            for (int32_t j = 0; j < len; j++) {
                first[j] = arc_token[j];
            }
        }
    }
    /* The tag lies 70 + 99 bytes in (header, then U, UPrimeCommit, m1Commit). */
    if (same(first + 169, arc_token + 169, 33)) {
        verdict("two tokens with one tag", rc);
        return;
    }
    rc = op_arc_token(NULL);
    verdict(rc == -PAT_E_PRESENTATION_LIMIT_REACHED ? NULL : "a third token under limit 2", rc);
}

int app_main(void)
{
    bool counting = probe_clock_start();
    rt_put(counting ? "clock: counts instructions" : "clock: not exact (no -icount shift=0), no instruction counts");
    rt_line();
    for (size_t i = 0; i < KIND_COUNT; i++) {
        self_test(&kinds[i]);
    }
    for (size_t i = 0; i < KAT_CASE_COUNT; i++) {
        known_answer(kat_cases[i]);
    }
    for (size_t i = 0; i < KIND_COUNT; i++) {
        random_request(&kinds[i]);
        authorization_value(&kinds[i]);
    }
    for (size_t i = 0; i < EXT_KIND_COUNT; i++) {
        ext_known_answer(&ext_kinds[i]);
        ext_random_request(&ext_kinds[i]);
        ext_authorization_value(&ext_kinds[i]);
    }
    for (size_t i = 0; i < BATCH_KIND_COUNT; i++) {
        batch_known_answer(&batch_kinds[i]);
        batch_random_request(&batch_kinds[i]);
    }
    generic_known_answer();
    generic_random_request();
    type2_origin_verify();
    act_known_run();
    act_client_calls();
    act_random_request();
    athm_known_answer();
    athm_random_request();
    athm_authorization_value();
    arc_known_answer();
    arc_finalize();
    arc_random_request();
    arc_tokens();
    for (size_t i = 0; i < KIND_COUNT; i++) {
        const struct kind *k = &kinds[i];
        figure("stack", k->name, "request", k->peak_request.stack);
        figure("stack", k->name, "finalize", k->peak_finalize.stack);
        if (counting) {
            figure("insns", k->name, "request", k->peak_request.insns);
            figure("insns", k->name, "finalize", k->peak_finalize.insns);
        }
    }
    for (size_t i = 0; i < EXT_KIND_COUNT; i++) {
        const struct ext_kind *k = &ext_kinds[i];
        figure("stack", k->name, "request", k->peak_request.stack);
        figure("stack", k->name, "finalize", k->peak_finalize.stack);
        if (counting) {
            figure("insns", k->name, "request", k->peak_request.insns);
            figure("insns", k->name, "finalize", k->peak_finalize.insns);
        }
    }
    for (size_t i = 0; i < BATCH_KIND_COUNT; i++) {
        const struct batch_kind *k = &batch_kinds[i];
        figure("stack", k->name, "request", k->peak_request.stack);
        figure("stack", k->name, "finalize", k->peak_finalize.stack);
        if (counting) {
            figure("insns", k->name, "request", k->peak_request.insns);
            figure("insns", k->name, "finalize", k->peak_finalize.insns);
        }
    }
    figure("stack", "generic_batch", "request", generic_peak_request.stack);
    figure("stack", "generic_batch", "finalize", generic_peak_finalize.stack);
    figure("stack", "type2", "verify", verify_peak.stack);
    if (counting) {
        figure("insns", "generic_batch", "request", generic_peak_request.insns);
        figure("insns", "generic_batch", "finalize", generic_peak_finalize.insns);
        figure("insns", "type2", "verify", verify_peak.insns);
    }
    figure("stack", "act", "request", act_peak_request.stack);
    figure("stack", "act", "finalize", act_peak_finalize.stack);
    figure("stack", "act", "refund", act_peak_refund.stack);
    if (counting) {
        figure("insns", "act", "request", act_peak_request.insns);
        figure("insns", "act", "finalize", act_peak_finalize.insns);
        figure("insns", "act", "refund", act_peak_refund.insns);
    }
    figure("stack", "athm", "request", athm_peak_request.stack);
    figure("stack", "athm", "finalize", athm_peak_finalize.stack);
    if (counting) {
        figure("insns", "athm", "request", athm_peak_request.insns);
        figure("insns", "athm", "finalize", athm_peak_finalize.insns);
    }
    figure("stack", "arc", "request", arc_peak_request.stack);
    figure("stack", "arc", "finalize", arc_peak_finalize.stack);
    figure("stack", "arc", "token", arc_peak_token.stack);
    if (counting) {
        figure("insns", "arc", "request", arc_peak_request.insns);
        figure("insns", "arc", "finalize", arc_peak_finalize.insns);
        figure("insns", "arc", "token", arc_peak_token.insns);
    }
    rt_put_u64(passed);
    rt_put(" passed, ");
    rt_put_u64(failed);
    rt_put(" failed");
    rt_line();
    /* Every check ran: the cases of the generated table, three per type,
     * three per type with public metadata, two per amortized batch type, the
     * generic batch's two, the origin's type-2 check, ACT's three, ATHM's
     * three and ARC's four. */
    bool complete = passed + failed ==
                    KAT_CASE_COUNT + 3 * KIND_COUNT + 3 * EXT_KIND_COUNT + 2 * BATCH_KIND_COUNT + 2 + 1 + 3 + 3 + 4;
    return failed == 0 && complete ? 0 : 1;
}
