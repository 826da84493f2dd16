/* Stack painting and the SysTick instruction clock; see probe.h. */
#include "probe.h"
#include "rt.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYST_ENABLE_TICKINT_CORECLK 7u

/* The 24-bit counter's largest reload: one wrap (and one exception) per
 * 2^24 ticks, about 671 M instructions at 40 instructions per tick. */
#define RELOAD 0x00FFFFFFu

/* A word no operation is likely to leave behind (the Rust runner's). */
#define PAINT 0xCCCCCCCCu

/* Room for probe_measure's own calls and the call into op: never painted. */
#define MARGIN 256u

static uint32_t insns_per_tick;

/* Ticks since probe_clock_start: the wraps counted by the SysTick handler
 * and the down-counter, re-read if a wrap came in between. */
static uint64_t ticks(void)
{
    for (;;) {
        uint32_t wraps = rt_systick_wraps;
        uint32_t current = SYST_CVR;
        if (rt_systick_wraps == wraps) {
            return (uint64_t)wraps * (RELOAD + 1u) + (RELOAD - current);
        }
    }
}

/* n iterations of a decrement and a branch: 2n instructions. */
static void spin(uint32_t n)
{
    __asm__ volatile("1:\n\tsubs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

bool probe_clock_start(void)
{
    SYST_CSR = 0;
    SYST_RVR = RELOAD;
    SYST_CVR = 0;
    SYST_CSR = SYST_ENABLE_TICKINT_CORECLK;
    /* The counter reads 0 until its first reload, which is no wrap. */
    while (SYST_CVR == 0) {
    }
    /* qemu with -icount shift=0 advances its clock 1 ns per instruction and
     * the board's core clock is 25 MHz, so a tick should be 40
     * instructions; measure rather than assume, and accept the factor only
     * when it explains the loop to 0.1%. */
    const uint32_t loops = 2000000;
    const uint64_t expected = 2ull * loops;
    uint64_t t0 = ticks();
    spin(loops);
    uint64_t t = ticks() - t0;
    if (t == 0) {
        return false;
    }
    uint64_t factor = (expected + t / 2) / t;
    uint64_t counted = t * factor;
    uint64_t error = counted > expected ? counted - expected : expected - counted;
    insns_per_tick = (factor != 0 && factor <= UINT32_MAX && error * 1000 <= expected) ? (uint32_t)factor : 0;
    return insns_per_tick != 0;
}

__attribute__((noinline)) int32_t probe_measure(int32_t (*op)(void *ctx), void *ctx, struct probe *out)
{
    const uintptr_t bottom = (uintptr_t)rt_stack_bottom;
    const uintptr_t sp = rt_sp();
    const uintptr_t top = sp - MARGIN;
    /* [bottom, top) lies below every live frame: free stack, written and
     * read through volatile so that no access is elided or merged. */
    for (uintptr_t a = bottom; a < top; a += 4) {
        *(volatile uint32_t *)a = PAINT;
    }
    uint64_t t0 = ticks();
    int32_t result = op(ctx);
    uint64_t t = ticks() - t0;
    uintptr_t a = bottom;
    while (a < top && *(volatile uint32_t *)a == PAINT) {
        a += 4;
    }
    out->stack = (uint32_t)(sp - a);
    out->insns = t * insns_per_tick;
    /* Changed down to the last word: it may have gone further. */
    out->overflow = a == bottom;
    return result;
}
