/*
 * The type-0xC07E (ATHM) client role alone, for its flash: what
 * nostd-check's client_type_c07e binary does. A request through the
 * randomness callback, then the reference's finalize_token procedure (its
 * ChaCha20 replayed from the procedure's seed), the token compared with
 * the vector's. Exit status 0 on a match.
 */
#include <stddef.h>
#include <stdint.h>

#include "kat_data.h"
#include "pat.h"
#include "rt.h"

int app_main(void)
{
    const struct athm_kat *v = &athm_kat;
    uint8_t request[PAT_ATHM_REQUEST_LEN], state[PAT_ATHM_STATE_LEN], token[PAT_ATHM_TOKEN_LEN];
    if (v->state.n != sizeof state || v->token.n != sizeof token) {
        return 1;
    }
    struct test_rng rng = {7, 0};
    if (pat_athm_request(v->deployment_id.p, v->deployment_id.n, v->token_key.p, v->token_key.n, test_rng, &rng,
                         request, sizeof request, state, sizeof state) != PAT_ATHM_REQUEST_LEN) {
        return 1;
    }
    for (size_t i = 0; i < sizeof state; i++) {
        state[i] = v->state.p[i];
    }
    if (pat_athm_finalize_with(v->deployment_id.p, v->deployment_id.n, v->token_key.p, v->token_key.n, state,
                               sizeof state, v->response.p, v->response.n, v->finalize_seed.p, v->finalize_seed.n,
                               token, sizeof token) != PAT_ATHM_TOKEN_LEN) {
        return 1;
    }
    for (size_t i = 0; i < sizeof token; i++) {
        if (token[i] != v->token.p[i]) {
            return 1;
        }
    }
    return 0;
}
