/*
 * Peak stack and executed instructions of one call, measured the way the
 * Rust runner (nostd-check/src/main.rs, `measure`) does, so the figures
 * compare: the free stack is painted before the call and scanned after it;
 * SysTick counts instructions when qemu runs with -icount shift=0.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdbool.h>
#include <stdint.h>

/* Starts SysTick and calibrates it on a loop of known length. Returns
 * false when ticks do not track instructions exactly (no -icount). */
bool probe_clock_start(void);

struct probe {
    uint32_t stack;  /* peak bytes below the caller's frame */
    uint64_t insns;  /* 0 when the clock is not calibrated */
    bool overflow;   /* the call reached the stack's last word */
};

/* Runs op(ctx) and returns its result; stores its peak stack and
 * instructions in *out. */
int32_t probe_measure(int32_t (*op)(void *ctx), void *ctx, struct probe *out);

#endif
