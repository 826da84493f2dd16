/*
 * The vector firmware: pat-go's issuance vectors for types 0x0001, 0x0002
 * and 0x0005 through the C API on a Cortex-M4 with no allocator and no
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
    if (p.overflow) {
        verdict("stack overflow", rc);
    } else if (!returned(rc, k->request_len) || k->request_len != c->request.n) {
        verdict("wrong length", rc);
    } else if (rng.bytes == 0) {
        verdict("the callback was never called", rc);
    } else if (!same(request, c->request.p, 3)) {
        verdict("token type or key id differs from the vector's", rc);
    } else if (same(request, c->request.p, c->request.n) || all_zero(state, k->state_len)) {
        verdict("request repeats the vector's or the state is empty", rc);
    } else {
        pat_wipe(state, k->state_len);
        verdict(all_zero(state, k->state_len) ? NULL : "pat_wipe left bytes", rc);
    }
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
    for (size_t i = 0; i < KIND_COUNT; i++) {
        const struct kind *k = &kinds[i];
        figure("stack", k->name, "request", k->peak_request.stack);
        figure("stack", k->name, "finalize", k->peak_finalize.stack);
        if (counting) {
            figure("insns", k->name, "request", k->peak_request.insns);
            figure("insns", k->name, "finalize", k->peak_finalize.insns);
        }
    }
    rt_put_u64(passed);
    rt_put(" passed, ");
    rt_put_u64(failed);
    rt_put(" failed");
    rt_line();
    /* Every check ran: the cases of the generated table and three per type. */
    bool complete = passed + failed == KAT_CASE_COUNT + 3 * KIND_COUNT;
    return failed == 0 && complete ? 0 : 1;
}
