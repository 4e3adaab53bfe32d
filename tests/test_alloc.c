/*
 * test_alloc.c - every registered allocator through the same checks, at
 * the allocator's own interface: objects of every size come back byte for
 * byte after any mix of allocations, frees and the compaction they cause;
 * relocations are reported exactly; the arena budget is respected;
 * everything is returned when the objects are gone; and mates() names
 * exactly the objects that share a frame, buddies() a subset of them.
 *
 * The frames an object occupies, for the brute force over mates(): where
 * objects never straddle frames, the frame that holds the pointer map()
 * gives; zsmalloc's objects do straddle, and its mates() counts a slot's
 * frames, which the object's own bytes may not all reach, so it is asked
 * directly (zc__zsmalloc_slot_frames).
 *
 * Then what each allocator promises of its own: z3fold never puts more
 * than three objects in a frame and moves a lone middle object to the
 * front; xvmalloc returns a frame as soon as its last object goes and
 * merges free neighbours into room for a large object.
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
#include "zt_util.h"

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

/* The arena frame that holds p. */
static uint32_t frame_of_ptr(const struct zc__arena *arena, const void *p)
{
    const uint8_t *b = p;

    for (uint32_t i = 0; i < arena->nchunks; i++) {
        const struct zc__chunk *ch = &arena->chunks[i];
        if (ch->base && b >= ch->base &&
            b < ch->base + ((size_t)ch->nframes << arena->page_shift))
            return i * ZC__CHUNK_FRAMES +
                   (uint32_t)((size_t)(b - ch->base) >> arena->page_shift);
    }
    fail_msg("pointer outside the arena");
    return 0;
}

/* The frames object id occupies (1 or 2). */
static unsigned frames_of(struct shadow *s, const struct zc__arena *arena,
                          uint32_t id, uint32_t out[2])
{
    const uint8_t *p;

    if (strcmp(s->ops->name, "zsmalloc") == 0)
        return zc__zsmalloc_slot_frames(s->a, s->handle[id], out);
    p = s->ops->map(s->a, s->handle[id], s->size[id], s->bounce);
    if (p == s->bounce)
        fail_msg("%s: object %u straddles frames", s->ops->name, id);
    out[0] = frame_of_ptr(arena, p);
    assert_int_equal(frame_of_ptr(arena, p + s->size[id] - 1), out[0]);
    return 1;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return (x > y) - (x < y);
}

#define MATES_MAX (2 * 65536 / 8) /* two frames of the smallest objects */

/* For every live object: mates() is exactly the other live objects with
 * which it shares a frame (a brute force over every object's frames),
 * also when cut short by max; buddies() is a subset of it. */
static void check_mates(struct shadow *s, const struct zc__arena *arena)
{
    uint32_t nf = arena->nchunks * ZC__CHUNK_FRAMES;
    uint32_t *start = calloc(nf + 1, sizeof(uint32_t));
    uint32_t *fill_at = calloc(nf + 1, sizeof(uint32_t));
    uint32_t *member = malloc(2 * MAXOBJ * sizeof(uint32_t));
    uint32_t *want = malloc(2 * MATES_MAX * sizeof(uint32_t));
    uint32_t *got = malloc((MATES_MAX + 1) * sizeof(uint32_t));
    uint32_t fr[2], nbud, bud[4];

    assert_true(start && fill_at && member && want && got);
    /* Members of each frame, bucketed by frame id. */
    for (uint32_t id = 0; id < MAXOBJ; id++)
        if (s->live[id])
            for (unsigned k = frames_of(s, arena, id, fr); k--;) {
                assert_true(fr[k] < nf);
                start[fr[k] + 1]++;
            }
    for (uint32_t f = 0; f < nf; f++)
        start[f + 1] += start[f];
    memcpy(fill_at, start, (nf + 1) * sizeof(uint32_t));
    for (uint32_t id = 0; id < MAXOBJ; id++)
        if (s->live[id])
            for (unsigned k = frames_of(s, arena, id, fr); k--;)
                member[fill_at[fr[k]]++] = id;
    for (uint32_t id = 0; id < MAXOBJ; id++) {
        unsigned nwant = 0, ngot, n = 0;
        if (!s->live[id])
            continue;
        for (unsigned k = frames_of(s, arena, id, fr); k--;)
            for (uint32_t m = start[fr[k]]; m < start[fr[k] + 1]; m++)
                if (member[m] != id)
                    want[nwant++] = s->handle[member[m]];
        qsort(want, nwant, sizeof(*want), cmp_u32);
        for (unsigned i = 0; i < nwant; i++)
            if (!n || want[n - 1] != want[i])
                want[n++] = want[i];
        nwant = n;
        assert_true(nwant <= MATES_MAX);
        ngot = s->ops->mates(s->a, s->handle[id], got, MATES_MAX + 1);
        qsort(got, ngot, sizeof(*got), cmp_u32);
        assert_int_equal(ngot, nwant);
        if (memcmp(got, want, nwant * sizeof(*got)))
            fail_msg("%s: mates of object %u differ", s->ops->name, id);
        /* Cut short: at most max written, each a true mate. */
        ngot = s->ops->mates(s->a, s->handle[id], got, 1);
        assert_int_equal(ngot, nwant ? 1 : 0);
        if (ngot)
            assert_non_null(
                bsearch(&got[0], want, nwant, sizeof(*want), cmp_u32));
        nbud = s->ops->buddies ? s->ops->buddies(s->a, s->handle[id], bud, 4)
                               : 0; /* an allocator without whole frames */
        assert_true(nbud <= 4);
        for (unsigned i = 0; i < nbud; i++)
            assert_non_null(
                bsearch(&bud[i], want, nwant, sizeof(*want), cmp_u32));
    }
    free(start);
    free(fill_at);
    free(member);
    free(want);
    free(got);
}

static void run_allocator(const char *name, size_t page, uint32_t frames,
                          uint64_t seed, int nops, int mates)
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
    nops = (int)zt_scale((uint64_t)nops, (uint64_t)nops / 4); /* quick tier */
    for (int op = 0; op < nops; op++) {
        uint32_t id;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        id = (uint32_t)((x >> 20) % MAXOBJ);
        if (!s->live[id] && (x >> 60) < 11) {
            /* Sizes like compressed pages: mostly a quarter to a half. */
            size_t r = (x >> 8) & 0xfff;
            size_t size =
                4 + (r % 8 == 0 ? r % (max - 4) : r % (page / 2 - 4) + 1);
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
            if (mates)
                check_mates(s, &arena);
        }
    }
    assert_int_equal(s->ops->check(s->a, &objects), 0);
    assert_int_equal(objects, s->nlive);
    if (mates)
        check_mates(s, &arena);
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
        run_allocator(name, 4096, 2000, 1 + i, 200000, 0);  /* roomy */
        run_allocator(name, 4096, 300, 7 + i, 200000, 0);   /* budget-bound */
        run_allocator(name, 512, 4000, 11 + i, 200000, 0);  /* small pages */
        run_allocator(name, 65536, 200, 13 + i, 200000, 0); /* large pages */
    }
}

static void
test_every_allocator_names_exactly_the_mates_sharing_a_frame(void **state)
{
    (void)state;
    for (size_t i = 0; zc_backend_name(ZC_BACKEND_ALLOCATOR, i); i++) {
        const char *name = zc_backend_name(ZC_BACKEND_ALLOCATOR, i);
        run_allocator(name, 4096, 2000, 21 + i, 60000, 1);
        run_allocator(name, 4096, 300, 27 + i, 60000, 1);
        run_allocator(name, 512, 4000, 31 + i, 60000, 1);
        run_allocator(name, 65536, 200, 33 + i, 60000, 1);
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

/* A fresh allocator over a fresh arena, for the allocator-specific tests. */
struct rig {
    struct shadow *s;
    struct zc__mem m;
    struct zc__arena arena;
    struct zc__relocate reloc;
};

static struct rig *rig_new(const char *name, size_t page, uint32_t frames)
{
    struct rig *b = calloc(1, sizeof(*b));

    assert_non_null(b);
    b->s = calloc(1, sizeof(*b->s));
    assert_non_null(b->s);
    b->reloc.moved = moved;
    b->reloc.ctx = b->s;
    zc__mem_init(&b->m, NULL);
    zc__arena_init(&b->arena, &b->m, page, frames);
    b->s->ops = zc__find_allocator(name);
    assert_non_null(b->s->ops);
    assert_int_equal(b->s->ops->create(&b->arena, &b->m, &b->reloc, &b->s->a),
                     0);
    return b;
}

/* Allocate and fill object id; the rc of alloc. */
static int rig_put(struct rig *b, uint32_t id, size_t size)
{
    struct shadow *s = b->s;
    uint8_t buf[65536];
    int rc = s->ops->alloc(s->a, size, &s->handle[id]);

    if (rc)
        return rc;
    s->size[id] = (uint16_t)size;
    s->gen[id] = id + 1;
    s->live[id] = 1;
    s->nlive++;
    fill(buf, id, s->gen[id], size);
    s->ops->write(s->a, s->handle[id], buf, size);
    return 0;
}

static void rig_drop(struct rig *b, uint32_t id)
{
    struct shadow *s = b->s;

    verify(s, id);
    s->live[id] = 0;
    s->nlive--;
    s->ops->free(s->a, s->handle[id]);
}

static void rig_check(struct rig *b)
{
    uint64_t objects;

    assert_int_equal(b->s->ops->check(b->s->a, &objects), 0);
    assert_int_equal(objects, b->s->nlive);
    for (uint32_t i = 0; i < MAXOBJ; i++)
        if (b->s->live[i])
            verify(b->s, i);
}

static void rig_free(struct rig *b)
{
    for (uint32_t i = 0; i < MAXOBJ; i++)
        if (b->s->live[i])
            rig_drop(b, i);
    assert_int_equal(b->arena.frames_used, 0);
    b->s->ops->destroy(b->s->a);
    zc__arena_destroy(&b->arena);
    assert_int_equal(atomic_load(&b->m.bytes), 0);
    free(b->s);
    free(b);
}

/* How many live objects each frame holds, by frame id. */
static uint32_t *objects_per_frame(struct rig *b)
{
    uint32_t nf = b->arena.nchunks * ZC__CHUNK_FRAMES, fr[2];
    uint32_t *count = calloc(nf + 1, sizeof(uint32_t));

    assert_non_null(count);
    for (uint32_t id = 0; id < MAXOBJ; id++)
        if (b->s->live[id]) {
            assert_int_equal(frames_of(b->s, &b->arena, id, fr), 1);
            count[fr[0]]++;
        }
    return count;
}

static void
test_z3fold_never_puts_more_than_three_objects_in_a_frame(void **state)
{
    struct rig *b = rig_new("z3fold", 4096, 8000);
    uint64_t x = 5;

    (void)state;
    /* Tiny objects: a frame has room for sixty, z3fold takes three. */
    for (uint32_t id = 0; id < 3000; id++)
        assert_int_equal(rig_put(b, id, 10 + id % 50), 0);
    assert_int_equal(b->arena.frames_used, 1000);
    /* Churn with small and mid sizes; count per frame now and then. */
    for (int op = 0; op < 60000; op++) {
        uint32_t id;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        id = (uint32_t)((x >> 33) % 6000);
        if (b->s->live[id])
            rig_drop(b, id);
        else
            assert_int_equal(rig_put(b, id, 5 + (x >> 8) % 1500), 0);
        if (op % 3000 == 0) {
            uint32_t nf = b->arena.nchunks * ZC__CHUNK_FRAMES;
            uint32_t *count = objects_per_frame(b);
            uint64_t frames = 0;
            for (uint32_t f = 0; f < nf; f++) {
                assert_true(count[f] <= 3);
                frames += count[f] != 0;
            }
            assert_int_equal(frames, b->arena.frames_used);
            free(count);
            rig_check(b);
        }
    }
    rig_free(b);
}

static void test_z3fold_lone_middle_object_moves_to_the_front(void **state)
{
    struct rig *b = rig_new("z3fold", 4096, 16);
    uint32_t middle;

    (void)state;
    /* First, last, then middle of one frame. */
    for (uint32_t id = 0; id < 3; id++)
        assert_int_equal(rig_put(b, id, 1000), 0);
    assert_int_equal(b->arena.frames_used, 1);
    middle = b->s->handle[2];
    rig_drop(b, 0);
    assert_int_equal(b->s->moves, 0); /* middle only slides, same handle */
    assert_int_equal(b->s->handle[2], middle);
    rig_check(b);
    rig_drop(b, 1);
    /* Alone, the middle object becomes the first: a new handle. */
    assert_int_equal(b->s->moves, 1);
    assert_true(b->s->handle[2] != middle);
    rig_check(b);
    /* The frame takes a large object beside it now. */
    assert_int_equal(rig_put(b, 3, 3000), 0);
    assert_int_equal(b->arena.frames_used, 1);
    rig_check(b);
    rig_free(b);
}

static void
test_xvmalloc_returns_each_frame_when_its_last_object_goes(void **state)
{
    struct rig *b = rig_new("xvmalloc", 4096, 4000);
    uint32_t order[3000], fr[2], nf;
    uint32_t *count;
    uint64_t x = 9;

    (void)state;
    for (uint32_t id = 0; id < 3000; id++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        assert_int_equal(rig_put(b, id, 4 + (x >> 20) % 2500), 0);
        order[id] = id;
    }
    for (uint32_t i = 2999; i > 0; i--) { /* a random order of frees */
        uint32_t j, t;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        j = (uint32_t)((x >> 33) % (i + 1));
        t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    count = objects_per_frame(b);
    nf = b->arena.nchunks * ZC__CHUNK_FRAMES;
    for (uint32_t i = 0; i < 3000; i++) {
        uint32_t id = order[i], used = b->arena.frames_used;
        frames_of(b->s, &b->arena, id, fr);
        assert_true(fr[0] < nf);
        rig_drop(b, id);
        /* The frame goes exactly when its last object does. */
        assert_int_equal(b->arena.frames_used, used - (--count[fr[0]] == 0));
        if (i % 500 == 0)
            rig_check(b);
    }
    assert_int_equal(b->arena.frames_used, 0);
    assert_int_equal(atomic_load(&b->m.arena_bytes), 0);
    free(count);
    rig_free(b);
}

static void test_xvmalloc_merged_neighbours_take_a_large_object(void **state)
{
    struct rig *b = rig_new("xvmalloc", 4096, 16);
    const uint8_t *base, *last;
    uint32_t n = 0, fr[2];
    size_t hdr, room;

    (void)state;
    /* Fill one frame with small objects. */
    for (;; n++) {
        assert_int_equal(rig_put(b, n, 100), 0);
        if (b->arena.frames_used > 1)
            break;
    }
    rig_drop(b, n); /* the one that opened a second frame */
    assert_int_equal(b->arena.frames_used, 1);
    frames_of(b->s, &b->arena, 0, fr);
    base = zc__arena_frame(&b->arena, fr[0]);
    /* The first object sits right after its header at the frame start. */
    hdr = (size_t)((const uint8_t *)b->s->ops->map(b->s->a, b->s->handle[0],
                                                   100, b->s->bounce) -
                   base);
    assert_true(hdr > 0 && hdr < 100);
    last = b->s->ops->map(b->s->a, b->s->handle[n - 1], 100, b->s->bounce);
    /* Free all but the last, odd ones first: every free merges with a
     * free neighbour before, after, or both. */
    for (uint32_t id = 1; id < n - 1; id += 2)
        rig_drop(b, id);
    rig_check(b);
    for (uint32_t id = 0; id < n - 1; id += 2)
        rig_drop(b, id);
    rig_check(b);
    assert_int_equal(b->arena.frames_used, 1);
    /* One run from the frame start to the last object's header. */
    room = (size_t)(last - base) - hdr - hdr;
    assert_int_equal(rig_put(b, n, room), 0);
    assert_int_equal(b->arena.frames_used, 1);
    assert_ptr_equal(
        b->s->ops->map(b->s->a, b->s->handle[n], room, b->s->bounce),
        base + hdr);
    rig_check(b);
    rig_free(b);
}

static void test_xvmalloc_takes_its_largest_object_in_one_frame(void **state)
{
    struct rig *b = rig_new("xvmalloc", 4096, 16);
    size_t max = b->s->ops->max_size(b->s->a);

    (void)state;
    assert_true(max > 4096 - 16 && max < 4096);
    assert_int_equal(rig_put(b, 0, max), 0);
    assert_int_equal(b->arena.frames_used, 1);
    assert_int_equal(rig_put(b, 1, max), 0);
    assert_int_equal(b->arena.frames_used, 2);
    assert_int_equal(b->s->ops->alloc(b->s->a, max + 1, &b->s->handle[2]),
                     -ZC_EINVAL);
    rig_check(b);
    rig_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocator_round_trips_under_churn),
        cmocka_unit_test(
            test_every_allocator_names_exactly_the_mates_sharing_a_frame),
        cmocka_unit_test(test_zsmalloc_compaction_relocates_and_frees_frames),
        cmocka_unit_test(
            test_z3fold_never_puts_more_than_three_objects_in_a_frame),
        cmocka_unit_test(test_z3fold_lone_middle_object_moves_to_the_front),
        cmocka_unit_test(
            test_xvmalloc_returns_each_frame_when_its_last_object_goes),
        cmocka_unit_test(test_xvmalloc_merged_neighbours_take_a_large_object),
        cmocka_unit_test(test_xvmalloc_takes_its_largest_object_in_one_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
