/*
 * core/alloc/zsmalloc.c - size classes over multi-frame spans, with compaction,
 * after the kernel's zsmalloc.
 *
 * An object goes to the class of its size rounded up to 8 bytes.  A class
 * packs objects back to back into spans of 1 to 8 frames (a "zspage"); the
 * span length is the one that wastes the least of its frames, so objects
 * may straddle two frames of a span; a longer span is taken only when it
 * wastes clearly less (SPAN_GAIN), since a class's partly filled span is
 * waste too.  Classes whose (frames, objects) per
 * span come out equal are merged into the largest of them, as the kernel
 * does, which keeps the number of partly filled spans down.  That length
 * is a class's longest: a new span of a class holding few objects is
 * shorter (span_len(): the length of least expected waste for the
 * class's population), since its last, partly filled span wastes half a
 * span on average and a short one wastes less; the kernel's zspages
 * always take the full length.
 *
 * A handle names an object by span id and slot number: slot_bits =
 * log2(page / 8) bits of slot (no class has more objects per span than a
 * page has 8-byte units... times the span, see create) and the rest span
 * id.  Free slots of a span form a list threaded through the slots
 * themselves (a 16-bit successor at the slot's start; slots never used yet
 * are simply those past `fresh`, so a new span is not touched until it is
 * written), and free span ids a
 * list threaded through the span table, so a span's metadata is 16 bytes
 * plus 4 per frame plus its 8-byte table slot.
 *
 * A class with no free slot borrows one from a slightly larger class before
 * it opens a new span (see geometry() for how much larger).
 *
 * How long spans may be, and so the classes, and how far a class borrows,
 * follow the budget in force (geometry()).  When it changes
 * (zc_set_capacity), new spans take the classes of the new budget, as a
 * cache made at that budget would, and spans made under another keep
 * their classes until they empty: each budget's classes are built the
 * first time it is used and kept, and a class borrows only within its
 * own budget's.
 *
 * Compaction is eager: as soon as a class has a longest span's worth of
 * free slots (a test in constant time), the objects of its emptiest
 * spans move into the others, as long as those can take them, and the
 * spans' frames go back to the arena; each move is reported through the
 * relocate hook so the owner can update its handle.  Partly used spans
 * therefore never waste more than one longest span per class.
 *
 * Nothing is evicted for a frame's sake, so it has no buddies(); mates()
 * names the in-use slots of the span that reach into a frame this object's
 * slot reaches into (a slot straddles at most two).
 *
 * Invariants: a span is on its class's non-full list iff inuse < its
 * objs; class free_slots == sum of (objs - inuse) over its spans, and
 * class inuse the sum of inuse; free_slots < objs (a longest span's);
 * an empty span does not exist.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "../internal.h"

#define MAX_SPAN 8
/* A longer span must beat a shorter one by this much usage to be chosen:
 * long spans waste less at their tail but more while partly filled.
 * Measured on real file pages (bench/): 0.02 gave the best density. */
#define SPAN_GAIN 0.02
#define STEP 8
#define NO_SLOT 0xFFFFu

struct zs_class {
    uint32_t size;
    uint16_t span;    /* frames of its longest spans */
    uint16_t objs;    /* objects in one of them */
    uint32_t nonfull; /* span id + 1, 0 = none */
    uint32_t nspans;
    uint32_t free_slots; /* (handles name at most 2^31 slots) */
    uint32_t inuse;      /* objects held */
};

struct zs_span {
    uint16_t cls;
    uint16_t inuse;
    uint16_t free_head;   /* freed slots, a list through the slots */
    uint16_t fresh;       /* slots from here on were never used */
    uint32_t prev : 28;   /* non-full list, span id + 1 */
    uint32_t nframes : 4; /* 1..classes[cls].span */
    uint32_t next;        /* non-full list, span id + 1 */
    uint32_t frames[];    /* nframes of them */
};

/* Span ids + 1 must fit prev's 28 bits. */
#define SPAN_ID_BITS 27

_Static_assert(sizeof(struct zs_span) == 16, "a span's header is 16 bytes");
_Static_assert(sizeof(struct zs_class) == 24, "a class is 24 bytes");

/* Span ids name slots of a table in chunks of 256 (2 KiB), so that the
 * table grows a chunk at a time instead of doubling. */
#define SPC_SHIFT 8
#define SPC_IDS (1u << SPC_SHIFT)

struct zs {
    struct zc__arena *arena;
    struct zc__mem *mem;
    struct zc__relocate reloc;
    size_t page;
    unsigned shift, off_bits;
    /* the geometry in force: built for a budget of geom_frames */
    uint32_t geom_frames;
    uint32_t borrow;    /* how much larger a borrowed slot may be, 16.16 */
    uint16_t *class_of; /* by size / STEP: the classes of the longest span
                           in force, tiers[max_span] */
    uint32_t first;     /* and the first of them (the largest) */
    /* every span length's classes built so far, each one's together and
     * largest first */
    struct {
        uint16_t *class_of;
        uint32_t first;
    } tiers[MAX_SPAN + 1];
    uint32_t nclasses;
    struct zs_class *classes;
    size_t nsizes;
    /* by span id: a span pointer, or (next free id + 1) << 1 | 1 */
    uintptr_t **spc; /* the chunks */
    uint32_t nspc, spc_cap;
    uint32_t nspan_ids;
    uint32_t free_id; /* first free id + 1 */
    unsigned slot_bits;
    uint32_t max_objs; /* objects per span of any class (the bitmap's) */
    uint8_t *bitmap;   /* compaction scratch: one bit per slot */
    size_t bitmap_bytes;
    uint8_t *bounce; /* compaction scratch: one object */
    uint64_t objects;
};

static inline unsigned span_frames(const struct zs *z, const struct zs_span *sp)
{
    ZC__UNUSED(z);
    return sp->nframes;
}

/* Objects in a span of n frames of class c. */
static inline unsigned objs_of(const struct zs *z, const struct zs_class *c,
                               unsigned n)
{
    unsigned k = (unsigned)(n * z->page / c->size);

    return k < c->objs ? k : c->objs; /* (objs: at most the slot bits) */
}

static inline unsigned span_objs(const struct zs *z, const struct zs_span *sp)
{
    return objs_of(z, &z->classes[sp->cls], sp->nframes);
}

static size_t span_bytes(const struct zs *z, const struct zs_span *sp)
{
    return sizeof(*sp) + span_frames(z, sp) * sizeof(uint32_t);
}

static inline uintptr_t *span_slot(const struct zs *z, uint32_t sid)
{
    return &z->spc[sid >> SPC_SHIFT][sid & (SPC_IDS - 1)];
}

static inline struct zs_span *span_at(const struct zs *z, uint32_t sid)
{
    uintptr_t v = *span_slot(z, sid);

    return (v & 1) ? NULL : (struct zs_span *)v;
}

static void zs_destroy(void *p)
{
    struct zs *z = p;

    if (!z)
        return;
    for (uint32_t i = 0; i < z->nspan_ids; i++) {
        struct zs_span *sp = span_at(z, i);
        if (!sp)
            continue;
        for (unsigned f = 0; f < span_frames(z, sp); f++)
            zc__arena_free(z->arena, sp->frames[f]);
        zc__free(z->mem, ZC__MEM_PAGE, sp, span_bytes(z, sp));
    }
    for (uint32_t i = 0; i < z->nspc; i++)
        zc__free(z->mem, ZC__MEM_PAGE, z->spc[i], SPC_IDS * sizeof(uintptr_t));
    zc__free(z->mem, ZC__MEM_PAGE, z->spc, z->spc_cap * sizeof(*z->spc));
    zc__free(z->mem, ZC__MEM_FIXED, z->classes,
             z->nclasses * sizeof(*z->classes));
    for (unsigned t = 0; t <= MAX_SPAN; t++)
        zc__free(z->mem, ZC__MEM_FIXED, z->tiers[t].class_of,
                 z->nsizes * sizeof(*z->tiers[t].class_of));
    zc__free(z->mem, ZC__MEM_FIXED, z->bitmap, z->bitmap_bytes);
    zc__free(z->mem, ZC__MEM_FIXED, z->bounce, z->page);
    zc__free(z->mem, ZC__MEM_FIXED, z, sizeof(*z));
}

/* The span length in 1..max_span frames that wastes least for size s. */
static void best_span(size_t page, size_t s, unsigned max_span, size_t max_objs,
                      unsigned *span, unsigned *objs)
{
    double best = -1;

    for (unsigned n = 1; n <= max_span; n++) {
        size_t k = n * page / s;
        double usage = (double)(k * s) / (double)(n * page);
        if (k > max_objs)
            k = max_objs;
        if (k && usage > best + SPAN_GAIN) {
            best = usage;
            *span = n;
            *objs = (unsigned)k;
        }
    }
}

/* The classes of spans of up to max_span frames, appended to the others;
 * their objects per span at most max_objs (the handle's slot bits). */
static int tier_build(struct zs *z, unsigned max_span, size_t max_objs)
{
    unsigned span = 0, objs = 0;
    uint32_t n = 0, first = z->nclasses;
    uint16_t *class_of =
        zc__alloc(z->mem, ZC__MEM_FIXED, z->nsizes * sizeof(*class_of));
    struct zs_class *classes;

    if (!class_of)
        return -ZC_ENOMEM;
    /* Count merged classes first, largest size down. */
    for (int pass = 0; pass < 2; pass++) {
        unsigned last_span = 0, last_objs = 0;
        n = 0;
        for (size_t i = z->nsizes - 1; i >= 1; i--) {
            best_span(z->page, i * STEP, max_span, max_objs, &span, &objs);
            if (span != last_span || objs != last_objs) {
                if (pass) {
                    struct zs_class *c = &z->classes[first + n];
                    c->size = (uint32_t)(i * STEP);
                    c->span = (uint16_t)span;
                    c->objs = (uint16_t)objs;
                }
                n++;
                last_span = span;
                last_objs = objs;
            }
            if (pass)
                class_of[i] = (uint16_t)(first + n - 1);
        }
        if (!pass) {
            if (first + n > NO_SLOT)
                goto nomem; /* (sp->cls is 16 bits: cannot happen) */
            classes = zc__calloc(z->mem, ZC__MEM_FIXED,
                                 (first + n) * sizeof(*classes));
            if (!classes)
                goto nomem;
            if (first)
                memcpy(classes, z->classes, first * sizeof(*classes));
            zc__free(z->mem, ZC__MEM_FIXED, z->classes,
                     first * sizeof(*classes));
            z->classes = classes;
            z->nclasses = first + n;
        }
    }
    class_of[0] = class_of[1];
    z->tiers[max_span].class_of = class_of;
    z->tiers[max_span].first = first;
    return 0;
nomem:
    zc__free(z->mem, ZC__MEM_FIXED, class_of, z->nsizes * sizeof(*class_of));
    return -ZC_ENOMEM;
}

/* The longest span for a budget of `frames`: every class in use keeps
 * about half a span unused, so spans must be short in a small arena: up
 * to 1 frame per 256 of the budget. */
static unsigned max_span_of(uint32_t frames)
{
    unsigned m = frames / 256;

    return m < 1 ? 1 : m > MAX_SPAN ? MAX_SPAN : m;
}

/* The geometry of the budget in force: its classes (built on first use)
 * and how far a class borrows.  A class may borrow a slot from a class
 * larger by up to 4/sqrt(frames): rounding up costs per object, a partly
 * used span per class, so the best class spacing shrinks as
 * 1/sqrt(objects).  (Measured on real file pages at 1, 4, 16 and 64 MiB:
 * density 0.34/0.75/0.93/0.96 with 8-frame spans and 1/32 borrowing,
 * 0.79/0.89/0.93/0.96 with these.)  If the classes cannot be built, the
 * old ones stay in force. */
static int geometry(struct zs *z)
{
    uint32_t frames = z->arena->max_frames, r = 1;
    unsigned t = max_span_of(frames);

    if (!z->tiers[t].class_of) {
        int rc = tier_build(z, t, z->max_objs);
        if (rc)
            return rc;
    }
    z->class_of = z->tiers[t].class_of;
    z->first = z->tiers[t].first;
    while ((uint64_t)(r + 1) * (r + 1) <= (uint64_t)frames + 1)
        r++;
    z->borrow = (uint32_t)((4u << 16) / r);
    z->geom_frames = frames;
    return 0;
}

static int zs_create(struct zc__arena *arena, struct zc__mem *mem,
                     const struct zc__relocate *reloc, void **out)
{
    struct zs *z = zc__calloc(mem, ZC__MEM_FIXED, sizeof(*z));
    unsigned max_objs = 0;

    if (!z)
        return -ZC_ENOMEM;
    z->arena = arena;
    z->mem = mem;
    z->reloc = *reloc;
    z->page = arena->page_size;
    z->shift = arena->page_shift;
    z->off_bits = z->shift - 3;
    z->nsizes = z->page / STEP + 1;
    z->bounce = zc__alloc(mem, ZC__MEM_FIXED, z->page);
    if (!z->bounce)
        goto nomem;
    /* Slot numbers must fit the handle's low bits, and the bitmap: as
     * many as the classes of the budget made with need (a budget set
     * later gets classes of at most that many objects per span). */
    z->max_objs = NO_SLOT - 1;
    if (geometry(z))
        goto nomem;
    for (uint32_t ci = 0; ci < z->nclasses; ci++)
        if (z->classes[ci].objs > max_objs)
            max_objs = z->classes[ci].objs;
    z->max_objs = max_objs;
    z->slot_bits = 1;
    while ((1u << z->slot_bits) < max_objs)
        z->slot_bits++;
    z->bitmap_bytes = (max_objs + 7) / 8;
    z->bitmap = zc__alloc(mem, ZC__MEM_FIXED, z->bitmap_bytes);
    if (!z->bitmap)
        goto nomem;
    *out = z;
    return 0;
nomem:
    zs_destroy(z);
    return -ZC_ENOMEM;
}

static size_t zs_max_size(const void *p)
{
    const struct zs *z = p;

    return z->page;
}

/* ---- places ----------------------------------------------------------- */

static inline uint32_t encode(const struct zs *z, uint32_t sid, uint32_t slot)
{
    return (sid << z->slot_bits) | slot;
}

/* The span of a handle and the object's byte offset within the span. */
static inline struct zs_span *decode(const struct zs *z, uint32_t h,
                                     uint32_t *sid, size_t *span_off)
{
    struct zs_span *sp;

    *sid = h >> z->slot_bits;
    sp = (struct zs_span *)*span_slot(z, *sid);
    *span_off =
        (size_t)(h & ((1u << z->slot_bits) - 1)) * z->classes[sp->cls].size;
    return sp;
}

static inline uint8_t *slot_ptr(const struct zs *z, const struct zs_span *sp,
                                size_t span_off)
{
    return zc__arena_frame(z->arena, sp->frames[span_off >> z->shift]) +
           (span_off & (z->page - 1));
}

static uint32_t slot_handle(const struct zs *z, uint32_t sid, size_t span_off)
{
    const struct zs_span *sp = (const struct zs_span *)*span_slot(z, sid);

    return encode(z, sid, (uint32_t)(span_off / z->classes[sp->cls].size));
}

/* ---- lists -------------------------------------------------------------- */

static void nonfull_push(struct zs *z, struct zs_class *c, uint32_t sid)
{
    struct zs_span *sp = span_at(z, sid);

    sp->prev = 0;
    sp->next = c->nonfull;
    if (c->nonfull)
        span_at(z, c->nonfull - 1)->prev = sid + 1;
    c->nonfull = sid + 1;
}

static void nonfull_unlink(struct zs *z, struct zs_class *c, uint32_t sid)
{
    struct zs_span *sp = span_at(z, sid);

    if (sp->prev)
        span_at(z, sp->prev - 1)->next = sp->next;
    else
        c->nonfull = sp->next;
    if (sp->next)
        span_at(z, sp->next - 1)->prev = sp->prev;
    sp->prev = sp->next = 0;
}

/* ---- spans ------------------------------------------------------------ */

static int span_id_get(struct zs *z, uint32_t *sid)
{
    if (z->free_id) {
        *sid = z->free_id - 1;
        z->free_id = (uint32_t)(*span_slot(z, *sid) >> 1);
        return 0;
    }
    if (z->nspan_ids >> (31 - z->slot_bits) || z->nspan_ids >> SPAN_ID_BITS)
        return -ZC_ENOSPC;
    if (z->nspan_ids == z->nspc << SPC_SHIFT) {
        uintptr_t *chunk;
        if (zc__grow_table(z->mem, ZC__MEM_PAGE, (void ***)&z->spc, &z->spc_cap,
                           z->nspc))
            return -ZC_ENOMEM;
        chunk = zc__alloc(z->mem, ZC__MEM_PAGE, SPC_IDS * sizeof(*chunk));
        if (!chunk)
            return -ZC_ENOMEM;
        z->spc[z->nspc++] = chunk;
    }
    *sid = z->nspan_ids++;
    return 0;
}

/* How many frames a new span of class c takes: the length that wastes
 * least in expectation, were the class to keep the objects it holds now
 * (and this one) in spans of that length.  A span wastes its tail (what
 * its slots leave of its frames) for good, and, while the class's last
 * span fills, half of itself on average: so a class holding few objects
 * opens short spans and one holding many opens the longest, which waste
 * least per object. */
static unsigned span_len(const struct zs *z, const struct zs_class *c)
{
    double best = 0;
    unsigned len = c->span;

    for (unsigned n = 1; n <= c->span; n++) {
        unsigned k = objs_of(z, c, n);
        double tail, w;
        if (!k)
            continue;
        tail = (double)(n * z->page) - (double)k * c->size;
        w = (double)(c->inuse + 1) * tail / k + (double)(n * z->page) / 2;
        if (n == 1 || w < best) {
            best = w;
            len = n;
        }
    }
    return len;
}

static int span_new(struct zs *z, uint32_t ci, uint32_t *sid_out)
{
    struct zs_class *c = &z->classes[ci];
    struct zs_span *sp;
    uint32_t sid;
    unsigned got, n = span_len(z, c);
    int rc = 0;

    sp = zc__alloc(z->mem, ZC__MEM_PAGE, sizeof(*sp) + n * sizeof(uint32_t));
    if (!sp)
        return -ZC_ENOMEM;
    memset(sp, 0, sizeof(*sp));
    sp->cls = (uint16_t)ci;
    sp->nframes = n & 0xF;
    for (got = 0; got < n; got++) {
        rc = zc__arena_alloc(z->arena, &sp->frames[got]);
        if (rc)
            break;
    }
    if (!rc)
        rc = span_id_get(z, &sid);
    if (rc) {
        while (got--)
            zc__arena_free(z->arena, sp->frames[got]);
        zc__free(z->mem, ZC__MEM_PAGE, sp, span_bytes(z, sp));
        return rc;
    }
    *span_slot(z, sid) = (uintptr_t)sp;
    sp->free_head = NO_SLOT;
    sp->fresh = 0;
    c->free_slots += span_objs(z, sp);
    c->nspans++;
    nonfull_push(z, c, sid);
    *sid_out = sid;
    return 0;
}

static void span_release(struct zs *z, uint32_t sid)
{
    struct zs_span *sp = span_at(z, sid);
    struct zs_class *c = &z->classes[sp->cls];

    nonfull_unlink(z, c, sid);
    c->free_slots -= span_objs(z, sp);
    c->nspans--;
    for (unsigned f = 0; f < span_frames(z, sp); f++)
        zc__arena_free(z->arena, sp->frames[f]);
    zc__free(z->mem, ZC__MEM_PAGE, sp, span_bytes(z, sp));
    *span_slot(z, sid) = (uintptr_t)z->free_id << 1 | 1;
    z->free_id = sid + 1;
}

/* Take a free slot of a span that has one; its span offset. */
static size_t slot_take(struct zs *z, uint32_t sid)
{
    struct zs_span *sp = span_at(z, sid);
    struct zs_class *c = &z->classes[sp->cls];
    size_t off;

    if (sp->free_head != NO_SLOT) {
        off = (size_t)sp->free_head * c->size;
        sp->free_head = zc__ld16(slot_ptr(z, sp, off));
    } else {
        off = (size_t)sp->fresh++ * c->size;
    }
    sp->inuse++;
    c->free_slots--;
    c->inuse++;
    if (sp->inuse == span_objs(z, sp))
        nonfull_unlink(z, c, sid);
    return off;
}

static void slot_give(struct zs *z, uint32_t sid, size_t off)
{
    struct zs_span *sp = span_at(z, sid);
    struct zs_class *c = &z->classes[sp->cls];

    zc__st16(slot_ptr(z, sp, off), sp->free_head);
    sp->free_head = (uint16_t)(off / c->size);
    if (sp->inuse == span_objs(z, sp))
        nonfull_push(z, c, sid);
    sp->inuse--;
    c->free_slots++;
    c->inuse--;
}

/* ---- object bytes ----------------------------------------------------- */

static void copy_out(const struct zs *z, const struct zs_span *sp, size_t off,
                     void *dst, size_t len)
{
    size_t in = off & (z->page - 1);
    size_t first = z->page - in < len ? z->page - in : len;

    memcpy(dst, slot_ptr(z, sp, off), first);
    if (first < len)
        memcpy((uint8_t *)dst + first, slot_ptr(z, sp, off + first),
               len - first);
}

static void copy_in(const struct zs *z, const struct zs_span *sp, size_t off,
                    const void *src, size_t len)
{
    size_t in = off & (z->page - 1);
    size_t first = z->page - in < len ? z->page - in : len;

    memcpy(slot_ptr(z, sp, off), src, first);
    if (first < len)
        memcpy(slot_ptr(z, sp, off + first), (const uint8_t *)src + first,
               len - first);
}

static const void *zs_map(void *p, uint32_t h, size_t len, void *bounce)
{
    struct zs *z = p;
    uint32_t sid;
    size_t off;
    struct zs_span *sp = decode(z, h, &sid, &off);

    if ((off & (z->page - 1)) + len <= z->page)
        return slot_ptr(z, sp, off);
    copy_out(z, sp, off, bounce, len);
    return bounce;
}

static void zs_write(void *p, uint32_t h, const void *src, size_t len)
{
    struct zs *z = p;
    uint32_t sid;
    size_t off;
    struct zs_span *sp = decode(z, h, &sid, &off);

    copy_in(z, sp, off, src, len);
}

/* ---- alloc, free, compaction -------------------------------------------- */

static int zs_alloc(void *p, size_t size, uint32_t *handle)
{
    struct zs *z = p;
    uint32_t ci, sid;
    struct zs_class *c;
    size_t off;

    if (size == 0 || size > z->page)
        return -ZC_EINVAL;
    if (z->arena->max_frames != z->geom_frames)
        (void)geometry(z); /* (else the old one stays in force) */
    ci = z->class_of[(size + STEP - 1) / STEP];
    c = &z->classes[ci];
    /* Before opening a span, take a free slot of a slightly larger class
     * of the same geometry: a new span's unused slots would waste more. */
    for (uint32_t up = ci;
         !c->nonfull && up-- > z->first &&
         z->classes[up].size <= size + ((size * z->borrow) >> 16);)
        if (z->classes[up].nonfull) {
            ci = up;
            c = &z->classes[ci];
        }
    if (c->nonfull) {
        sid = c->nonfull - 1;
    } else {
        int rc = span_new(z, ci, &sid);
        if (rc)
            return rc;
    }
    off = slot_take(z, sid);
    z->objects++;
    *handle = slot_handle(z, sid, off);
    return 0;
}

/* The least used of a class's non-full spans (span id + 1), if the
 * class's other free slots can take its objects (0 otherwise): the span
 * compaction empties next. */
static uint32_t compact_source(const struct zs *z, const struct zs_class *c)
{
    uint32_t src = 0, best = UINT32_MAX;

    for (uint32_t s = c->nonfull; s; s = span_at(z, s - 1)->next)
        if (span_at(z, s - 1)->inuse < best) {
            best = span_at(z, s - 1)->inuse;
            src = s;
        }
    /* free - (objs - inuse) >= inuse */
    return src && c->free_slots >= span_objs(z, span_at(z, src - 1)) ? src : 0;
}

/* Empty the least used span of a class into the others while the others
 * have room for its objects. */
static void compact(struct zs *z, struct zs_class *c)
{
    uint32_t s1;

    while ((s1 = compact_source(z, c)) != 0) {
        uint32_t src = s1 - 1;
        struct zs_span *sp = span_at(z, src);

        /* Unhook the source first so moves never land in it. */
        nonfull_unlink(z, c, src);
        memset(z->bitmap, 0, (span_objs(z, sp) + 7) / 8);
        for (uint16_t s = sp->free_head; s != NO_SLOT;
             s = zc__ld16(slot_ptr(z, sp, (size_t)s * c->size)))
            z->bitmap[s / 8] |= (uint8_t)(1u << (s % 8));
        for (unsigned s = 0; s < sp->fresh && sp->inuse; s++) {
            size_t from = (size_t)s * c->size, to;
            uint32_t dst, old_h, new_h;

            if (z->bitmap[s / 8] & (1u << (s % 8)))
                continue;
            dst = c->nonfull - 1;
            to = slot_take(z, dst);
            copy_out(z, sp, from, z->bounce, c->size);
            copy_in(z, span_at(z, dst), to, z->bounce, c->size);
            old_h = slot_handle(z, src, from);
            new_h = slot_handle(z, dst, to);
            sp->inuse--;
            c->free_slots++;
            c->inuse--;
            z->reloc.moved(z->reloc.ctx, old_h, new_h);
        }
        /* span_release unlinks from the list: put it back to keep that
         * symmetric. */
        nonfull_push(z, c, src);
        span_release(z, src);
    }
}

static void zs_free(void *p, uint32_t h)
{
    struct zs *z = p;
    uint32_t sid;
    size_t off;
    struct zs_span *sp = decode(z, h, &sid, &off);
    struct zs_class *c = &z->classes[sp->cls];

    slot_give(z, sid, off);
    z->objects--;
    if (sp->inuse == 0)
        span_release(z, sid);
    else if (c->free_slots >= c->objs)
        compact(z, c);
}

/* The objects whose slots reach into a frame that h's slot reaches into:
 * the slots from the one holding the first frame's first byte to the one
 * holding the last frame's last byte, less h, the slots never used (from
 * fresh on) and those on the free list. */
static unsigned zs_mates(void *p, uint32_t h, uint32_t *out, unsigned max)
{
    struct zs *z = p;
    uint32_t sid;
    size_t off;
    struct zs_span *sp = decode(z, h, &sid, &off);
    const struct zs_class *c = &z->classes[sp->cls];
    size_t lo = off & ~(z->page - 1);
    size_t hi = ((off + c->size - 1) | (z->page - 1)) + 1;
    unsigned self = (unsigned)(off / c->size), first, last, n = 0;

    first = (unsigned)(lo / c->size);
    last = (unsigned)((hi - 1) / c->size);
    if (last >= sp->fresh)
        last = sp->fresh - 1u; /* self < fresh, so fresh >= 1 */
    memset(z->bitmap + first / 8, 0, last / 8 - first / 8 + 1);
    for (uint16_t s = sp->free_head; s != NO_SLOT;
         s = zc__ld16(slot_ptr(z, sp, (size_t)s * c->size)))
        if (s >= first && s <= last)
            z->bitmap[s / 8] |= (uint8_t)(1u << (s % 8));
    for (unsigned s = first; s <= last && n < max; s++)
        if (s != self && !(z->bitmap[s / 8] & (1u << (s % 8))))
            out[n++] = encode(z, sid, s);
    return n;
}

unsigned zc__zsmalloc_slot_frames(const void *p, uint32_t h, uint32_t out[2])
{
    const struct zs *z = p;
    uint32_t sid;
    size_t off;
    const struct zs_span *sp = decode(z, h, &sid, &off);
    size_t f0 = off >> z->shift;
    size_t f1 = (off + z->classes[sp->cls].size - 1) >> z->shift;

    out[0] = sp->frames[f0];
    if (f1 == f0)
        return 1;
    out[1] = sp->frames[f1];
    return 2;
}

static int zs_check(const void *p, uint64_t *objects)
{
    const struct zs *z = p;
    uint64_t total = 0;
    uint64_t *free_by_class, *inuse_by_class;
    int rc = 0;

    free_by_class =
        zc__calloc(z->mem, ZC__MEM_FIXED, 2 * z->nclasses * sizeof(uint64_t));
    if (!free_by_class)
        return -ZC_ENOMEM;
    inuse_by_class = free_by_class + z->nclasses;
    for (uint32_t sid = 0; sid < z->nspan_ids && !rc; sid++) {
        const struct zs_span *sp = span_at(z, sid);
        const struct zs_class *c;
        unsigned nfree = 0, objs;

        if (!sp)
            continue;
        if (sp->cls >= z->nclasses) {
            rc = -ZC_ECORRUPT;
            break;
        }
        c = &z->classes[sp->cls];
        if (sp->nframes < 1 || sp->nframes > c->span) {
            rc = -ZC_ECORRUPT;
            break;
        }
        objs = span_objs(z, sp);
        if (sp->inuse == 0 || sp->inuse > objs) {
            rc = -ZC_ECORRUPT;
            break;
        }
        for (uint16_t s = sp->free_head; s != NO_SLOT && !rc;
             s = zc__ld16(slot_ptr(z, sp, (size_t)s * c->size)))
            if (s >= objs || ++nfree > objs)
                rc = -ZC_ECORRUPT;
        if (sp->fresh > objs ||
            nfree + (objs - sp->fresh) != (unsigned)(objs - sp->inuse))
            rc = -ZC_ECORRUPT;
        nfree += objs - sp->fresh;
        free_by_class[sp->cls] += nfree;
        inuse_by_class[sp->cls] += sp->inuse;
        total += sp->inuse;
    }
    for (uint32_t ci = 0; ci < z->nclasses && !rc; ci++) {
        const struct zs_class *c = &z->classes[ci];
        uint64_t listed = 0;
        if (free_by_class[ci] != c->free_slots ||
            inuse_by_class[ci] != c->inuse)
            rc = -ZC_ECORRUPT;
        for (uint32_t s = c->nonfull; s && !rc; s = span_at(z, s - 1)->next) {
            const struct zs_span *sp = span_at(z, s - 1);
            if (!sp || sp->cls != ci || sp->inuse >= span_objs(z, sp) ||
                ++listed > z->nspan_ids)
                rc = -ZC_ECORRUPT;
        }
        if (c->free_slots >= c->objs)
            rc = -ZC_ECORRUPT; /* compaction left a longest span's worth */
    }
    zc__free(z->mem, ZC__MEM_FIXED, free_by_class,
             2 * z->nclasses * sizeof(uint64_t));
    if (!rc && total != z->objects)
        rc = -ZC_ECORRUPT;
    *objects = total;
    return rc;
}

const struct zc__allocator_ops zc__allocator_zsmalloc = {
    .name = "zsmalloc",
    .doc = "size classes over spans of up to 8 frames, objects may "
           "straddle frames, eager compaction (after Linux zsmalloc)",
    .create = zs_create,
    .destroy = zs_destroy,
    .max_size = zs_max_size,
    .alloc = zs_alloc,
    .free = zs_free,
    .map = zs_map,
    .write = zs_write,
    .mates = zs_mates,
    .check = zs_check,
};
