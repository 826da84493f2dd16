/* The deterministic stand-in for a TRNG; see kat.h. Tests only. */
#include "kat.h"

int32_t test_rng(void *ctx, uint8_t *buf, size_t len)
{
    struct test_rng *rng = ctx;
    for (size_t i = 0; i < len; i++) {
        rng->state ^= rng->state << 13;
        rng->state ^= rng->state >> 17;
        rng->state ^= rng->state << 5;
        buf[i] = (uint8_t)(rng->state >> 24);
    }
    rng->bytes += (uint32_t)len;
    return 0;
}
