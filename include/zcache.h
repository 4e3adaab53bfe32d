/*
 * zcache.h - the public interface of libzcache.
 *
 * libzcache simulates, in user space, the compressed page cache that Linux
 * zcache (2010) put behind the Cleancache hooks.  When the kernel evicted a
 * clean page-cache page it *put* the page to zcache; on a later page-cache
 * miss it tried a *get* before reading the disk; truncate, unlink and umount
 * *invalidated* the copies.  zcache kept pages LZO1X-1 compressed, only
 * those that compressed to half a page or less, and stored pages of one
 * repeated machine word (zero pages above all) with no space at all.
 *
 * This header is the whole API: a cache object with a cleancache-style
 * put/get/invalidate interface over an arena of page frames bounded by a
 * byte budget, a configuration struct with a "key=value,..." parser, exact
 * statistics, and error codes.  Compressors, allocators and eviction
 * policies are back-ends chosen by name.
 *
 * Conventions
 *   - Fallible calls return 0 on success or a negative -ZC_E* code.
 *     zc_put_page() may also return a positive ZC_PUT_* reason when it
 *     declined to store the page (which is not an error: cleancache is
 *     ephemeral).  zc_strerror() explains any of these values.
 *   - The library never exits, aborts or prints.
 *   - All heap memory, the arena included, comes from zc_config.mem.
 *   - Thread safety: every function taking a zc_cache may be called from
 *     several threads at once on the same cache.  Compression runs outside
 *     the cache lock.  zc_config functions touch only their arguments.
 *
 * Copyright (C) 2026 the libzcache developers.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZCACHE_H
#define ZCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version, stated once; CMake reads it from these three lines. */
#define ZC_VERSION_MAJOR 0
#define ZC_VERSION_MINOR 1
#define ZC_VERSION_PATCH 0

/** The version as one number, MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is
 *  100), for #if tests; zc_version_number() is the library's at run time. */
#define ZC_VERSION_NUMBER                                                      \
    (ZC_VERSION_MAJOR * 10000 + ZC_VERSION_MINOR * 100 + ZC_VERSION_PATCH)

#define ZC__STR2(x) #x
#define ZC__STR(x) ZC__STR2(x)
#define ZC_VERSION_STRING                                                      \
    ZC__STR(ZC_VERSION_MAJOR)                                                  \
    "." ZC__STR(ZC_VERSION_MINOR) "." ZC__STR(ZC_VERSION_PATCH)

#if defined(_WIN32) || !defined(__GNUC__)
#define ZC_API
#else
#define ZC_API __attribute__((visibility("default")))
#endif

/** The library's version string, e.g. "0.1.0" (may differ from the header's
 *  ZC_VERSION_STRING when a program runs against a newer shared library). */
ZC_API const char *zc_version(void);

/** The library's ZC_VERSION_NUMBER (a program can compare it with the
 *  header's it was built with). */
ZC_API unsigned zc_version_number(void);

/* ------------------------------------------------------------------------
 * Error codes and put outcomes
 * ------------------------------------------------------------------------ */

/** Error codes and put outcomes, each once with its text (zc_strerror()
 *  returns it), as X(NAME, VALUE, TEXT): the enums below and the library's
 *  text table are both made from these lists. */
#define ZC_ERRORS(X)                                                           \
    /* get: the page is not in the cache (a miss) */                           \
    X(ZC_ENOENT, 1, "page not in the cache")                                   \
    /* bad argument: NULL, unknown pool, wrong page size, bad configuration    \
       key or value */                                                         \
    X(ZC_EINVAL, 2, "invalid argument")                                        \
    /* zc_config.mem refused an allocation */                                  \
    X(ZC_ENOMEM, 3, "out of memory")                                           \
    /* a fixed limit was reached (pools, pages, objects) */                    \
    X(ZC_ENOSPC, 4, "limit reached")                                           \
    /* an internal consistency check failed (a bug) */                         \
    X(ZC_ECORRUPT, 5, "internal consistency check failed")                     \
    /* a file could not be opened or read */                                   \
    X(ZC_EIO, 6, "cannot open or read a file")                                 \
    /* malformed input (a trace, a content file) */                            \
    X(ZC_EFORMAT, 7, "malformed input")                                        \
    /* a long call was stopped by its caller (a progress callback) */          \
    X(ZC_ECANCELED, 8, "stopped by the caller")

/** Reasons why zc_put_page() did not store a page (positive return
 *  values).  A page that is not stored is simply absent; later gets miss. */
#define ZC_PUT_OUTCOMES(X)                                                     \
    /* compressed size above accept_percent */                                 \
    X(ZC_PUT_REJECT_POOR, 1, "not stored: compressed size above the limit")    \
    /* no room even after evicting everything evictable (e.g. capacity 0) */   \
    X(ZC_PUT_REJECT_NOSPACE, 2, "not stored: no room in the arena")            \
    /* the pool was invalidated while the page was being compressed */         \
    X(ZC_PUT_REJECT_RACE, 3, "not stored: pool invalidated during the put")    \
    /* hysteresis: the arena filled up and has not yet drained to              \
       hysteresis_percent */                                                   \
    X(ZC_PUT_REJECT_FULL, 4, "not stored: the arena filled up (hysteresis)")   \
    /* active_only: the page was never re-referenced in the page cache */      \
    X(ZC_PUT_REJECT_INACTIVE, 5, "not stored: the page was never active")

#define ZC__ENUM(name, value, text) name = value,
/** Error codes: positive constants, returned negated (-ZC_EINVAL). */
enum { ZC_ERRORS(ZC__ENUM) };
/** Put outcomes: returned as they are. */
enum { ZC_PUT_OUTCOMES(ZC__ENUM) };
#undef ZC__ENUM

/** A human-readable text for any value the API returns: 0, a negative
 *  -ZC_E* error, or a positive ZC_PUT_* reason.  Never NULL; the string is
 *  static.  Thread-safe. */
ZC_API const char *zc_strerror(int code);

/* ------------------------------------------------------------------------
 * Keys
 * ------------------------------------------------------------------------ */

/** A file key: an inode number or a file handle of up to 24 bytes, as the
 *  kernel's struct cleancache_filekey.  Two keys are equal iff all six
 *  words are equal, so unused words must be zero. */
typedef struct zc_filekey {
    uint32_t fh[6];
} zc_filekey;

/** The key of inode number `ino`: the number in the first 8 bytes (native
 *  byte order, as the kernel's union), the rest zero. */
ZC_API zc_filekey zc_filekey_from_ino(uint64_t ino);

/* ------------------------------------------------------------------------
 * Configuration
 * ------------------------------------------------------------------------ */

/** The heap hook.  alloc(opaque, size) returns memory aligned for any type
 *  or NULL; free(opaque, ptr) releases it (ptr is never NULL).  Both NULL
 *  means malloc/free.  The cache calls them from inside its own locks, at
 *  most one call at a time per cache unless several threads compress at
 *  once; they must be thread-safe if the cache is shared between threads. */
typedef struct zc_mem {
    void *(*alloc)(void *opaque, size_t size);
    void (*free)(void *opaque, void *ptr);
    void *opaque;
} zc_mem;

/** A cache's configuration.  Start from zc_config_default(), change fields
 *  or apply zc_config_parse(); zc_cache_create() validates and copies it.
 *  Back-end names must be registered ones (zc_backend_name()). */
typedef struct zc_config {
    size_t capacity_bytes;   /* memory budget of the arena of page frames;
                                0 stores only same-filled pages; at most
                                ZC_CAPACITY_MAX */
    size_t page_size;        /* a power of two, 512..65536; default 4096 */
    const char *compressor;  /* "lzo" (lzo1x_1, default), "lz4", "zstd"
                                (when built), "none" (raw) */
    int level;               /* the compressor's level; 0 = its default
                                (lzo 1..9, lz4 1..12, zstd -7..22) */
    const char *allocator;   /* "zsmalloc" (default), "zbud", "z3fold",
                                "xvmalloc" */
    const char *policy;      /* "lru" (default), "fifo", "clock",
                                "frame_lru", "gdsf" */
    unsigned accept_percent; /* keep a page only if its compressed size is at
                                most page_size*accept_percent/100; 0..100,
                                default 50 (zcache's half-size rule) */
    bool store_raw;          /* pages above accept_percent are stored
                                uncompressed instead of rejected (zram's
                                and modern zswap's choice); default false */
    unsigned hysteresis_percent; /* 0 (default): evict as needed.  1..100:
                                once a put finds the arena full, evict by
                                the policy down to this percent of the
                                capacity and reject the put (zswap's
                                accept_threshold_percent, its shrinker
                                run at once) */
    bool active_only;            /* admit only puts flagged ZC_PUT_ACTIVE (pages
                                    re-referenced while in the page cache, the
                                    filter of zcache2); default false */
    bool dedup;                  /* pages of identical content share one stored
                                    copy; default false */
    bool same_filled;            /* pages of one repeated 64-bit word are kept
                                    with no arena space; default true */
    bool exclusive_gets;         /* a hit on a private pool removes the copy;
                                    default true.  Shared pools always keep it */
    zc_mem mem;                  /* all heap memory; {0} = malloc/free */
    struct zc_memo *memo;        /* NULL, or a compression memo shared with
                                    other caches (zc_memo_create()) */
} zc_config;

/** The largest capacity_bytes (15 GiB): an arena object is named by 31 bits
 *  of 8-byte units, with room left for the arena's chunk rounding. */
#define ZC_CAPACITY_MAX ((size_t)15 << 30)

/** The most pages a cache holds at once (2^26 - 1, 67 million: 256 GiB of
 *  4 KiB pages, same-filled ones included): a page is named by 26 bits in
 *  the index's 18-byte entries.  A full 15 GiB arena of pages compressed
 *  to a quarter holds 16 million. */
#define ZC_PAGES_MAX ((1u << 26) - 1)

/** The default configuration: 64 MiB, 4096-byte pages, lzo, zsmalloc, lru,
 *  accept_percent 50, same_filled and exclusive_gets on, malloc/free. */
ZC_API zc_config zc_config_default(void);

/**
 * Apply a "key=value,key=value" specification to *cfg.
 *
 * Keys: capacity (alias capacity_bytes), page_size, compressor, level,
 * allocator, policy, accept_percent, store_raw, hysteresis_percent,
 * active_only, dedup, same_filled, exclusive_gets.  A spec that names a
 * compressor but no level sets level 0 (that compressor's default); a
 * level outside the compressor's range is an error.  Sizes take an
 * optional K, M, G or T suffix (powers of 1024, optionally followed by
 * "iB" or "B"); booleans are true/false, yes/no, on/off or 1/0.  Back-end
 * names must be registered; cfg then points at the registry's copy of the
 * name, so `spec` need not outlive the call.  Whitespace around keys and
 * values is ignored; an empty spec changes nothing.
 *
 * Returns 0, or -ZC_EINVAL on an unknown key, a bad value or a NULL
 * argument; then *cfg may hold the keys before the bad one.  Use
 * zc_config_parse_error() for a message naming the offending item.
 */
ZC_API int zc_config_parse(zc_config *cfg, const char *spec);

/** Like zc_config_parse(), and on failure writes a one-line message naming
 *  the offending key or value into err[errlen] (always NUL-terminated when
 *  errlen > 0). */
ZC_API int zc_config_parse_error(zc_config *cfg, const char *spec, char *err,
                                 size_t errlen);

/** The keys zc_config_parse() takes, in the order zc_config_format()
 *  writes them: the i-th key's name (NULL past the last) and a one-line
 *  description for help texts.  The defaults are zc_config_default()'s,
 *  as zc_config_format() writes them. */
ZC_API const char *zc_config_key_name(size_t i);
ZC_API const char *zc_config_key_doc(size_t i);

/** Parse a size: a decimal number, optionally with a K, M, G or T suffix
 *  (powers of 1024, optionally followed by "iB" or "B").  Returns 0 for a
 *  plain number, 1 if a suffix was given (so tools can read a plain number
 *  as a count of pages), -ZC_EINVAL on anything else or on overflow. */
ZC_API int zc_parse_size(const char *s, uint64_t *out);

/** Write cfg as a spec string that zc_config_parse() reads back (the mem
 *  hook is not included).  Returns the length it needed (excluding the
 *  NUL), like snprintf; -ZC_EINVAL on NULL cfg. */
ZC_API int zc_config_format(const zc_config *cfg, char *buf, size_t len);

/* ------------------------------------------------------------------------
 * Back-end registries
 * ------------------------------------------------------------------------ */

typedef enum zc_backend_kind {
    ZC_BACKEND_COMPRESSOR = 0,
    ZC_BACKEND_ALLOCATOR = 1,
    ZC_BACKEND_POLICY = 2,
} zc_backend_kind;

/** The name of the i-th registered back-end of a kind (0, 1, ...), or NULL
 *  past the end.  With zc_backend_doc() it gives tools their --help. */
ZC_API const char *zc_backend_name(zc_backend_kind kind, size_t i);

/** A one-line description of the i-th back-end of a kind, or NULL. */
ZC_API const char *zc_backend_doc(zc_backend_kind kind, size_t i);

/* ------------------------------------------------------------------------
 * The cache
 * ------------------------------------------------------------------------ */

typedef struct zc_cache zc_cache;

/**
 * Create a cache.  The configuration is validated and copied; the cache
 * holds no arena memory until pages are stored.
 *
 * Returns 0 and sets *out; -ZC_EINVAL if cfg or out is NULL or cfg is
 * invalid (unknown back-end, page size not a power of two in 512..65536,
 * accept_percent above 100, capacity above ZC_CAPACITY_MAX, a mem hook with
 * only one of alloc/free); -ZC_ENOMEM.  The caller owns the cache.
 */
ZC_API int zc_cache_create(const zc_config *cfg, zc_cache **out);

/** Destroy a cache and everything in it.  NULL is fine.  No other call on
 *  the cache may be running or follow. */
ZC_API void zc_cache_destroy(zc_cache *c);

/** The page size c was made with (zc_config.page_size); 0 for NULL. */
ZC_API size_t zc_cache_page_size(const zc_cache *c);

/**
 * Create a private pool (one per mounted file system).  page_size must be
 * the cache's.  Returns the pool id (>= 0); -ZC_EINVAL; -ZC_ENOMEM;
 * -ZC_ENOSPC past 65535 live pools.
 */
ZC_API int zc_init_fs(zc_cache *c, size_t page_size);

/**
 * Create or join the shared pool of a 16-byte UUID (a clustered file
 * system): calls with the same UUID return the same pool while it lives.
 * Gets on shared pools never remove the copy.  Returns as zc_init_fs().
 */
ZC_API int zc_init_shared_fs(zc_cache *c, const uint8_t uuid[16],
                             size_t page_size);

/**
 * Offer a page (page_size bytes, not retained) for key (pool, key, index).
 *
 * Any copy already held for the key is dropped first, also when the new
 * page is then not stored.  A page of one repeated 64-bit word is stored
 * with no arena space (if same_filled); other pages are compressed outside
 * the cache lock and stored if the compressed size is at most
 * accept_percent of a page, evicting pages by the policy until it fits.
 *
 * Returns 0 if stored; a positive ZC_PUT_* reason if not; -ZC_EINVAL for a
 * NULL argument or unknown pool; -ZC_ENOMEM: the page is not stored and
 * the old copy is gone; pages that were evicted to make room before the
 * allocation failed stay evicted (counted in evictions); nothing else
 * changes.  -ZC_ENOSPC, the same way, when the cache already holds
 * ZC_PAGES_MAX pages.
 */
ZC_API int zc_put_page(zc_cache *c, int pool, const zc_filekey *key,
                       uint64_t index, const void *page);

/** Hints to zc_put_page_flags(). */
#define ZC_PUT_ACTIVE                                                          \
    1u /* the page was re-referenced while it was in the                       \
          page cache (the kernel's PageActive) */

/** zc_put_page() with hints (ZC_PUT_* flags, 0 for none): what the
 *  configuration's admission rules may look at (active_only).  Unknown
 *  flag bits are -ZC_EINVAL.  Otherwise as zc_put_page(). */
ZC_API int zc_put_page_flags(zc_cache *c, int pool, const zc_filekey *key,
                             uint64_t index, const void *page, unsigned flags);

/**
 * Look up a page and copy it into page[page_size].
 *
 * Returns 0 on a hit (on a private pool with exclusive_gets the copy is
 * removed); -ZC_ENOENT on a miss (page untouched); -ZC_EINVAL;
 * -ZC_ECORRUPT if the stored copy failed to decompress (a library bug: the
 * copy is dropped and the page must not be used).  Never
 * returns data older than the last put of the key or data of an
 * invalidated page, inode or pool.
 */
ZC_API int zc_get_page(zc_cache *c, int pool, const zc_filekey *key,
                       uint64_t index, void *page);

/** Drop the copy of one page, if any.  Returns 0 (also if there was none);
 *  -ZC_EINVAL. */
ZC_API int zc_invalidate_page(zc_cache *c, int pool, const zc_filekey *key,
                              uint64_t index);

/** Drop every page of one file.  Costs what it drops.  Returns 0;
 *  -ZC_EINVAL. */
ZC_API int zc_invalidate_inode(zc_cache *c, int pool, const zc_filekey *key);

/** Drop every page of a pool and free the pool id (it may be handed out
 *  again by a later init).  Returns 0; -ZC_EINVAL. */
ZC_API int zc_invalidate_fs(zc_cache *c, int pool);

/**
 * Change the capacity (the arena's byte budget) of a live cache, e.g. to
 * move memory between the page cache and the zcache.  Growing takes effect
 * at once.  Shrinking evicts pages by the policy (counted in evictions and
 * resize_evictions) until the frames in use fit the new budget; frames
 * that the arena obtained in chunks and that still hold pages may keep its
 * arena_bytes above the budget until they empty, but no frame is handed
 * out while frames in use are at the budget.  Thread-safe.  Returns 0;
 * -ZC_EINVAL (NULL, or above ZC_CAPACITY_MAX).
 */
ZC_API int zc_set_capacity(zc_cache *c, size_t capacity_bytes);

/* ------------------------------------------------------------------------
 * Simulator hooks
 *
 * What a simulator of the cache needs beyond the cleancache calls: a
 * shared compression memo for many caches of one trace, a put that says
 * what it found, an estimate that stores nothing, a probe without side
 * effects.  The simulation layer (zcache_sim.h) and its tools use them.
 * They are kept working and tested like the rest, but they follow the
 * simulator's needs: a minor version may change them (ZC_VERSION_NUMBER
 * tells which), while the calls above are the stable API.
 * ------------------------------------------------------------------------ */

/**
 * A compression memo: caches that share one (a sweep's configurations of
 * the same trace) compress each distinct page content once.  A cache with
 * a memo stores exactly what it would without one; its compress_ns counts
 * the time the compression took when it was done.  Thread-safe; it must
 * outlive the caches using it.  It takes no new contents once it holds
 * max_bytes (pages and compressed forms).  Returns 0; -ZC_EINVAL;
 * -ZC_ENOMEM.
 */
typedef struct zc_memo zc_memo;
ZC_API int zc_memo_create(size_t max_bytes, zc_memo **out);

/** Forget every content (e.g. once all caches have put a batch of pages).
 *  No cache may be using the memo during the call. */
ZC_API void zc_memo_clear(zc_memo *m);

/** Bytes held by the memo's entries (its work memory for
 *  zc_memo_prepare() aside). */
ZC_API size_t zc_memo_bytes(const zc_memo *m);

/** Destroy; NULL is fine.  No cache may use it any more. */
ZC_API void zc_memo_destroy(zc_memo *m);

/** Compress page as cache c would (its compressor and page size) into the
 *  memo, so that later puts of it by caches sharing the memo find it:
 *  lets a sweep compress a batch of pages in parallel, once each.  Pages
 *  that c would store as same-filled are skipped.  Thread-safe.  Returns
 *  0; -ZC_EINVAL; -ZC_ENOMEM. */
ZC_API int zc_memo_prepare(zc_memo *m, zc_cache *c, const void *page);

/** Whether a page zc_memo_prepare() compressed for cache a also serves
 *  cache b's puts (same compressor, level, page size and same-filled
 *  rule), so that a caller preparing for many caches prepares once. */
ZC_API bool zc_memo_shared(const zc_cache *a, const zc_cache *b);

/** What a put or an estimate found, for callers that model the cache
 *  (an adaptive controller). */
typedef struct zc_put_info {
    size_t compressed;    /* the compressed size admission judged; 0 when
                             nothing was compressed */
    uint64_t compress_ns; /* time spent compressing */
    bool same_filled;     /* a same-filled page (no arena space) */
    bool raw;             /* stored, or to be stored, uncompressed in a
                             whole frame */
} zc_put_info;

/** zc_put_page_flags() that also fills *info (NULL: nothing), whatever
 *  the outcome; the same returns. */
ZC_API int zc_put_page_info(zc_cache *c, int pool, const zc_filekey *key,
                            uint64_t index, const void *page, unsigned flags,
                            zc_put_info *info);

/**
 * Compress a page as a put would and store nothing: a probe of what the
 * page would cost.  Fills *info; returns 0 if a put would admit it (by
 * size: same-filled, within accept_percent, or store_raw),
 * ZC_PUT_REJECT_POOR if not; -ZC_EINVAL; -ZC_ENOMEM.  Counted in
 * estimates and compress_ns_estimates only.
 */
ZC_API int zc_estimate_page(zc_cache *c, const void *page, zc_put_info *info);

/** Whether the cache holds a copy of the page: 1 yes, 0 no, -ZC_EINVAL.
 *  No side effects: no policy refresh, no counters.  (A trace replay uses
 *  it to tell whether a write found a copy it is about to invalidate.) */
ZC_API int zc_probe_page(zc_cache *c, int pool, const zc_filekey *key,
                         uint64_t index);

/* ------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------ */

/** Buckets of zc_stats.compr_size_hist: compressed sizes in sixteenths of a
 *  page, the last one for outputs of a page or more (LZO expanded it). */
#define ZC_HIST_BUCKETS 17

/**
 * Exact statistics.  Counters count since creation; "now" fields describe
 * the cache at the moment of the call.  Every page that stops being held
 * is counted once in exactly one of invalidates, evictions, replaced and
 * exclusive_drops, so that
 *   stored_pages == stored_puts - invalidates - evictions - replaced
 *                   - exclusive_drops.
 */
typedef struct zc_stats {
    uint64_t puts;              /* zc_put_page calls that were not errors */
    uint64_t stored_puts;       /* puts that stored the page */
    uint64_t succ_gets;         /* gets that hit */
    uint64_t failed_gets;       /* gets that missed */
    uint64_t invalidates;       /* pages dropped by invalidate_page/inode/fs */
    uint64_t evictions;         /* pages dropped to make room */
    uint64_t replaced;          /* pages dropped by a put of the same key */
    uint64_t exclusive_drops;   /* pages removed by an exclusive get hit */
    uint64_t stored_pages;      /* pages held now, same-filled included */
    uint64_t same_filled_pages; /* same-filled pages held now */
    uint64_t raw_pages;         /* pages held now uncompressed in a whole frame
                                   (compressed form did not fit one) */
    uint64_t orig_data_size;    /* bytes of the pages held now */
    uint64_t compr_data_size;   /* compressed bytes held now (raw pages count a
                                   page; same-filled pages nothing; a copy
                                   shared by dedup once) */
    uint64_t mem_used_total;    /* arena bytes in frames in use now */
    uint64_t arena_bytes;       /* arena bytes obtained from mem now */
    uint64_t meta_bytes;        /* all other heap bytes held now, the sum of
                                   the next three */
    uint64_t meta_page_bytes;   /* of them, what grows with the pages held:
                                   index entries and their hash buckets,
                                   allocator spans, policy and dedup state
                                   (entries and frames come in chunks, so it
                                   is not 0 with no page held) */
    uint64_t meta_file_bytes;   /* what grows with the files held: objects
                                   (48 bytes each, 64 to a slab) and the
                                   pools' tables of them */
    uint64_t meta_fixed_bytes;  /* the rest: the cache itself, back-end
                                   tables and buffers, and work_bytes */
    uint64_t work_bytes;        /* of meta_fixed_bytes, compression work
                                   space: one buffer per thread compressing at
                                   once, taken at its first put (lzo: liblzo2's
                                   128 KiB and an output page, 132 KiB), not
                                   per page */
    uint64_t reject_compress_poor; /* puts rejected by accept_percent */
    uint64_t reject_nospace;       /* puts rejected for lack of room */
    uint64_t reject_race;     /* puts dropped: pool invalidated meanwhile */
    uint64_t reject_full;     /* puts rejected by hysteresis */
    uint64_t reject_inactive; /* puts rejected by active_only */
    uint64_t raw_stored;      /* puts stored raw by store_raw */
    uint64_t dedup_hits;      /* stored puts that shared a copy already held */
    uint64_t shared_pages;    /* pages held now through a copy shared with an
                                 earlier page (dedup): stored_pages minus the
                                 copies held, same-filled pages aside */
    uint64_t frag_bytes;      /* of mem_used_total, bytes no object occupies
                                 (allocator headers, class rounding, free
                                 space in frames in use); fragmentation =
                                 frag_bytes / mem_used_total */
    uint64_t compress_ns;     /* thread CPU time compressing pages then
                                 stored (CLOCK_THREAD_CPUTIME_ID: the
                                 machine's other load does not count) */
    uint64_t compress_ns_rejected;  /* the same, pages then rejected */
    uint64_t decompress_ns;         /* the same, decompressing (or copying)
                                       on gets */
    uint64_t compressions;          /* puts that compressed their page (not
                                       same-filled, not refused before:
                                       active_only); compress_ns's count
                                       with compress_ns_rejected's */
    uint64_t compressions_rejected; /* of them, pages then not stored */
    uint64_t decompressions;        /* hits that decompressed or copied
                                       (not same-filled pages) */
    uint64_t compactions;           /* objects moved by allocator compaction */
    uint64_t estimates;             /* zc_estimate_page() calls */
    uint64_t compress_ns_estimates; /* time they spent compressing */
    uint64_t pools;                 /* live pools now */
    uint64_t objects;          /* files (pool, file key) with pages held now */
    uint64_t capacity_bytes;   /* the budget now (zc_set_capacity) */
    uint64_t resizes;          /* zc_set_capacity calls that changed it */
    uint64_t resize_evictions; /* of evictions, pages evicted to shrink */
    uint64_t compr_size_hist[ZC_HIST_BUCKETS]; /* compressions by size */
} zc_stats;

/** Every scalar field of zc_stats, in declaration order, as X(name): the
 *  one list that outputs iterate (a CSV column or JSON member each), so
 *  that a new counter cannot be missing from one of them.  The library
 *  checks at build time that the list covers the struct; compr_size_hist
 *  (the array that ends it) is not in the list. */
#define ZC_STATS_FIELDS(X)                                                     \
    X(puts)                                                                    \
    X(stored_puts)                                                             \
    X(succ_gets)                                                               \
    X(failed_gets) X(invalidates) X(evictions) X(replaced) X(exclusive_drops)  \
        X(stored_pages) X(same_filled_pages) X(raw_pages) X(orig_data_size) X( \
            compr_data_size) X(mem_used_total) X(arena_bytes) X(meta_bytes)    \
            X(meta_page_bytes) X(meta_file_bytes) X(meta_fixed_bytes) X(       \
                work_bytes) X(reject_compress_poor) X(reject_nospace)          \
                X(reject_race) X(reject_full) X(reject_inactive) X(raw_stored) \
                    X(dedup_hits) X(shared_pages) X(frag_bytes) X(compress_ns) \
                        X(compress_ns_rejected) X(decompress_ns)               \
                            X(compressions) X(compressions_rejected)           \
                                X(decompressions) X(compactions) X(estimates)  \
                                    X(compress_ns_estimates) X(pools)          \
                                        X(objects) X(capacity_bytes)           \
                                            X(resizes) X(resize_evictions)

/** Fill *out with the cache's statistics (a consistent snapshot).
 *  Returns 0; -ZC_EINVAL on NULL. */
ZC_API int zc_stats_get(const zc_cache *c, zc_stats *out);

/**
 * Debug checker: walk every structure of the cache (index, policy lists,
 * allocator, arena, accounting) and verify its invariants.  Costs time
 * linear in the cache's size.  Returns 0; -ZC_ECORRUPT (a library bug);
 * -ZC_ENOMEM if mem refused the checker's small scratch table.
 */
ZC_API int zc_cache_check(const zc_cache *c);

#ifdef __cplusplus
}
#endif

#endif /* ZCACHE_H */
