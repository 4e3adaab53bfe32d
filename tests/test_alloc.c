/*
 * test_alloc.c - every registered allocator through the same checks, at
 * the allocator's own interface: objects of every size come back byte for
 * byte after any mix of allocations, frees and the compaction they cause;
 * relocations are reported exactly; the arena budget is respected; and
 * everything is returned when the objects are gone.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

#define MAXOBJ 20000

struct shadow {
    uint32_t handle[MAXOBJ];
    uint16_t size[MAXOBJ];
    uint32_t gen[MAXOBJ];
    uint8_t live[MAXOBJ];
    uint32_t nlive;
    uint64_t moves;
    const struct zc__allocator_ops *ops;
    void *a;
    uint8_t bounce[65536];
};

static uint8_t byte_at(uint32_t id, uint32_t gen, size_t i)
{
    return (uint8_t)((id * 131u + gen * 7u + i * 29u) >> 3 ^ i);
}

static void fill(uint8_t *buf, uint32_t id, uint32_t gen, size_t len)
{
    memcpy(buf, &id, 4);
    for (size_t i = 4; i < len; i++)
        buf[i] = byte_at(id, gen, i);
}

static void verify(struct shadow *s, uint32_t id)
{
    const uint8_t *p = s->ops->map(s->a, s->handle[id], s->size[id], s->bounce);
    uint32_t got;

    memcpy(&got, p, 4);
    assert_int_equal(got, id);
    for (size_t i = 4; i < s->size[id]; i++)
        if (p[i] != byte_at(id, s->gen[id], i))
            fail_msg("object %u byte %zu differs", id, i);
}

static void moved(void *ctx, uint32_t old_h, uint32_t new_h)
{
    struct shadow *s = ctx;
    uint8_t tmp[4];
    const uint8_t *p = s->ops->map(s->a, new_h, 4, tmp);
    uint32_t id;

    memcpy(&id, p, 4);
    assert_true(id < MAXOBJ);
    assert_true(s->live[id]);
    assert_int_equal(s->handle[id], old_h);
    s->handle[id] = new_h;
    s->moves++;
}

static void run_allocator(const char *name, size_t page, uint32_t frames,
                          uint64_t seed)
{
    struct shadow *s = calloc(1, sizeof(*s));
    struct zc__mem m;
    struct zc__arena arena;
    struct zc__relocate reloc = {moved, s};
    uint8_t *buf = malloc(page);
    uint64_t x = seed, objects;
    size_t max;

    zc__mem_init(&m, NULL);
    zc__arena_init(&arena, &m, page, frames);
    s->ops = zc__find_allocator(name);
    assert_non_null(s->ops);
    assert_int_equal(s->ops->create(&arena, &m, &reloc, &s->a), 0);
    max = s->ops->max_size(s->a);
    assert_true(max >= page / 2 && max <= page);
    for (int op = 0; op < 200000; op++) {
        uint32_t id;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        id = (uint32_t)((x >> 20) % MAXOBJ);
        if (!s->live[id] && (x >> 60) < 11) {
            /* Sizes like compressed pages: mostly a quarter to a half. */
            size_t r = (x >> 8) & 0xfff;
            size_t size = 4 + (r % 8 == 0 ? r % (max - 4)
                                          : r % (page / 2 - 4) + 1);
            uint32_t h;
            int rc = s->ops->alloc(s->a, size, &h);
            if (rc == -ZC_ENOSPC)
                continue; /* the budget is full: fine */
            assert_int_equal(rc, 0);
            assert_true(h < 0x80000000u);
            s->handle[id] = h;
            s->size[id] = (uint16_t)size;
            s->gen[id] = (uint32_t)op;
            s->live[id] = 1;
            s->nlive++;
            fill(buf, id, s->gen[id], size);
            s->ops->write(s->a, h, buf, size);
        } else if (s->live[id]) {
            verify(s, id);
            s->live[id] = 0;
            s->nlive--;
            s->ops->free(s->a, s->handle[id]);
        }
        assert_true(arena.frames_obtained <= frames);
        if (op % 5000 == 0) {
            assert_int_equal(s->ops->check(s->a, &objects), 0);
            assert_int_equal(objects, s->nlive);
            for (uint32_t i = 0; i < MAXOBJ; i++)
                if (s->live[i])
                    verify(s, i);
        }
    }
    assert_int_equal(s->ops->check(s->a, &objects), 0);
    assert_int_equal(objects, s->nlive);
    for (uint32_t i = 0; i < MAXOBJ; i++)
        if (s->live[i]) {
            verify(s, i);
            s->ops->free(s->a, s->handle[i]);
        }
    assert_int_equal(arena.frames_used, 0);
    assert_int_equal(atomic_load(&m.arena_bytes), 0);
    s->ops->destroy(s->a);
    zc__arena_destroy(&arena);
    assert_int_equal(atomic_load(&m.bytes), 0);
    printf("# %s page %zu: %llu relocations\n", name, page,
           (unsigned long long)s->moves);
    free(buf);
    free(s);
}

static void test_every_allocator_round_trips_under_churn(void **state)
{
    (void)state;
    for (size_t i = 0; zc_backend_name(ZC_BACKEND_ALLOCATOR, i); i++) {
        const char *name = zc_backend_name(ZC_BACKEND_ALLOCATOR, i);
        run_allocator(name, 4096, 2000, 1 + i);   /* roomy */
        run_allocator(name, 4096, 300, 7 + i);    /* budget-bound */
        run_allocator(name, 512, 4000, 11 + i);   /* small pages */
        run_allocator(name, 65536, 200, 13 + i);  /* large pages */
    }
}

static void test_zsmalloc_compaction_relocates_and_frees_frames(void **state)
{
    struct shadow *s = calloc(1, sizeof(*s));
    struct zc__mem m;
    struct zc__arena arena;
    struct zc__relocate reloc = {moved, s};
    uint8_t buf[1000];
    uint64_t objects;
    uint32_t peak;

    (void)state;
    zc__mem_init(&m, NULL);
    zc__arena_init(&arena, &m, 4096, 4096);
    s->ops = zc__find_allocator("zsmalloc");
    assert_int_equal(s->ops->create(&arena, &m, &reloc, &s->a), 0);
    for (uint32_t id = 0; id < 4000; id++) {
        s->size[id] = 1000;
        s->gen[id] = 1;
        s->live[id] = 1;
        s->nlive++;
        assert_int_equal(s->ops->alloc(s->a, 1000, &s->handle[id]), 0);
        fill(buf, id, 1, 1000);
        s->ops->write(s->a, s->handle[id], buf, 1000);
    }
    peak = arena.frames_used;
    /* Free three of every four: scattered holes that only moving fills. */
    for (uint32_t id = 0; id < 4000; id++)
        if (id % 4) {
            s->ops->free(s->a, s->handle[id]);
            s->live[id] = 0;
            s->nlive--;
        }
    assert_true(s->moves > 0);
    /* A quarter of the data needs about a quarter of the frames. */
    assert_true(arena.frames_used <= peak / 4 + 8);
    assert_int_equal(s->ops->check(s->a, &objects), 0);
    assert_int_equal(objects, 1000);
    for (uint32_t id = 0; id < 4000; id += 4)
        verify(s, id);
    s->ops->destroy(s->a);
    zc__arena_destroy(&arena);
    assert_int_equal(atomic_load(&m.bytes), 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocator_round_trips_under_churn),
        cmocka_unit_test(test_zsmalloc_compaction_relocates_and_frees_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
