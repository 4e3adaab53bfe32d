/*
 * test_arena.c - the frame arena: the budget is a hard limit, frames are
 * distinct and usable, chunks go back to the heap when empty, and the
 * accounting matches what the heap hook handed out.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static void test_alloc_up_to_budget_then_enospc(void **state)
{
    /* A budget that is not a multiple of the chunk size. */
    const uint32_t budget = 2 * ZC__CHUNK_FRAMES + 5;
    struct zc__mem m;
    struct zc__arena a;
    uint32_t *frames = calloc(budget, sizeof(*frames));
    uint32_t f;

    (void)state;
    zc__mem_init(&m, NULL);
    zc__arena_init(&a, &m, 4096, budget);
    for (uint32_t i = 0; i < budget; i++) {
        assert_int_equal(zc__arena_alloc(&a, &frames[i]), 0);
        /* Stamp the whole frame: it must be ours alone. */
        memset(zc__arena_frame(&a, frames[i]), (int)(i & 0xff), 4096);
        assert_true(atomic_load(&m.arena_bytes) <= (size_t)budget * 4096);
    }
    assert_int_equal(zc__arena_alloc(&a, &f), -ZC_ENOSPC);
    assert_int_equal(a.frames_used, budget);
    assert_int_equal(zc__arena_check(&a), 0);
    for (uint32_t i = 0; i < budget; i++) {
        const uint8_t *p = zc__arena_frame(&a, frames[i]);
        assert_int_equal(p[0], i & 0xff);
        assert_int_equal(p[4095], i & 0xff);
    }
    /* Free every other frame: no chunk empties, nothing goes back. */
    for (uint32_t i = 0; i < budget; i += 2)
        zc__arena_free(&a, frames[i]);
    assert_int_equal(atomic_load(&m.arena_bytes), (size_t)budget * 4096);
    assert_int_equal(zc__arena_check(&a), 0);
    /* Freed frames are handed out again before any new chunk. */
    assert_int_equal(zc__arena_alloc(&a, &f), 0);
    assert_int_equal(f % 2, 0);
    zc__arena_free(&a, f);
    for (uint32_t i = 1; i < budget; i += 2)
        zc__arena_free(&a, frames[i]);
    assert_int_equal(a.frames_used, 0);
    assert_int_equal(atomic_load(&m.arena_bytes), 0);
    assert_int_equal(zc__arena_check(&a), 0);
    zc__arena_destroy(&a);
    assert_int_equal(atomic_load(&m.bytes), 0);
    free(frames);
}

static void test_zero_budget_has_no_frames(void **state)
{
    struct zc__mem m;
    struct zc__arena a;
    uint32_t f;

    (void)state;
    zc__mem_init(&m, NULL);
    zc__arena_init(&a, &m, 4096, 0);
    assert_int_equal(zc__arena_alloc(&a, &f), -ZC_ENOSPC);
    zc__arena_destroy(&a);
    assert_int_equal(atomic_load(&m.bytes), 0);
}

static void test_random_alloc_free_keeps_invariants(void **state)
{
    const uint32_t budget = 300;
    struct zc__mem m;
    struct zc__arena a;
    uint32_t held[300];
    uint32_t n = 0;
    uint64_t x = 12345;

    (void)state;
    zc__mem_init(&m, NULL);
    zc__arena_init(&a, &m, 512, budget);
    for (int i = 0; i < 100000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        if ((x >> 33) % 3 && n < budget) {
            assert_int_equal(zc__arena_alloc(&a, &held[n]), 0);
            *(uint32_t *)(void *)zc__arena_frame(&a, held[n]) = held[n];
            n++;
        } else if (n) {
            uint32_t k = (uint32_t)((x >> 40) % n);
            assert_int_equal(*(uint32_t *)(void *)zc__arena_frame(&a, held[k]),
                             held[k]);
            zc__arena_free(&a, held[k]);
            held[k] = held[--n];
        }
        assert_int_equal(a.frames_used, n);
        assert_true(a.frames_obtained <= budget);
        if (i % 997 == 0)
            assert_int_equal(zc__arena_check(&a), 0);
    }
    while (n)
        zc__arena_free(&a, held[--n]);
    assert_int_equal(atomic_load(&m.arena_bytes), 0);
    zc__arena_destroy(&a);
    assert_int_equal(atomic_load(&m.bytes), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_up_to_budget_then_enospc),
        cmocka_unit_test(test_zero_budget_has_no_frames),
        cmocka_unit_test(test_random_alloc_free_keeps_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
