/*
 * core/config.c - the configuration: defaults, validation, the key=value parser
 * and its inverse.
 *
 * Tools, tests and experiments spell a configuration the same way,
 * "capacity=64M,compressor=lzo,allocator=zbud".  The parser is strict: an
 * unknown key, a malformed number, a number out of range or an unregistered
 * back-end name is an error naming the offending item, never a silent
 * default.  Back-end names are replaced by the registry's own copy so the
 * configuration never points into the caller's string.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "kv.h"

zc_config zc_config_default(void)
{
    zc_config cfg;

    memset(&cfg, 0, sizeof(cfg));
    cfg.capacity_bytes = (size_t)64 << 20;
    cfg.page_size = 4096;
    cfg.compressor = "lzo";
    cfg.allocator = "zsmalloc";
    cfg.policy = "lru";
    cfg.accept_percent = 50;
    cfg.same_filled = true;
    cfg.exclusive_gets = true;
    return cfg;
}

int zc__config_validate(const zc_config *cfg)
{
    size_t ps = cfg->page_size;

    if (ps < 512 || ps > 65536 || (ps & (ps - 1)))
        return -ZC_EINVAL;
    if (cfg->capacity_bytes > ZC_CAPACITY_MAX)
        return -ZC_EINVAL;
    if (cfg->accept_percent > 100)
        return -ZC_EINVAL;
    if (!cfg->compressor || !zc__find_compressor(cfg->compressor))
        return -ZC_EINVAL;
    {
        const struct zc__compressor_ops *o =
            zc__find_compressor(cfg->compressor);
        if (cfg->level &&
            (cfg->level < o->min_level || cfg->level > o->max_level))
            return -ZC_EINVAL;
    }
    if (cfg->hysteresis_percent > 100)
        return -ZC_EINVAL;
    if (!cfg->allocator || !zc__find_allocator(cfg->allocator))
        return -ZC_EINVAL;
    if (!cfg->policy || !zc__find_policy(cfg->policy))
        return -ZC_EINVAL;
    if (!cfg->mem.alloc != !cfg->mem.free)
        return -ZC_EINVAL;
    return 0;
}

int zc_parse_size(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;

    if (!s || !out || !isdigit((unsigned char)*s))
        return -ZC_EINVAL;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno)
        return -ZC_EINVAL;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        end++;
        if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
            end += strlen(end);
    }
    if (*end || (shift && v > (~0ULL >> shift)))
        return -ZC_EINVAL;
    *out = (uint64_t)v << shift;
    return shift ? 1 : 0;
}

/* A size that must fit size_t. */
static int parse_size(const char *s, size_t *out)
{
    uint64_t v;

    if (zc_parse_size(s, &v) < 0 || v > (size_t)-1)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};

    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -1;
}

/* The keys of a spec, in the order zc_config_format() writes them, with
 * one line each for help texts (zc_config_key_name/doc()): the list that
 * tools print and the unknown-key message names.  A key added to apply()
 * goes here too; test_config checks that every key here parses and that
 * zc_config_format() writes exactly these. */
static const struct {
    const char *name, *doc;
} keys[] = {
    {"capacity", "the arena's budget, bytes with K/M/G/T (alias "
                 "capacity_bytes; at most 15G; 0: same-filled pages only)"},
    {"page_size", "bytes per page: a power of two, 512 to 65536"},
    {"compressor", "a compressor back-end (the list of back-ends)"},
    {"level", "the compressor's level; 0: its default"},
    {"allocator", "an allocator back-end (the list of back-ends)"},
    {"policy", "a replacement-policy back-end (the list of back-ends)"},
    {"accept_percent", "store a page only if it compresses to at most this "
                       "% of a page (50: zcache's half-size rule)"},
    {"store_raw", "keep pages above accept_percent uncompressed instead of "
                  "rejecting them (zram's choice)"},
    {"hysteresis_percent", "0: evict as needed; 1-100: once full, evict down "
                           "to this % and reject the put (zswap)"},
    {"active_only", "admit only pages re-referenced in the page cache "
                    "(ZC_PUT_ACTIVE)"},
    {"dedup", "pages of identical content share one stored copy"},
    {"same_filled", "keep pages of one repeated 64-bit word with no arena "
                    "space"},
    {"exclusive_gets", "a hit on a private pool removes the copy"},
};

const char *zc_config_key_name(size_t i)
{
    return i < sizeof(keys) / sizeof(keys[0]) ? keys[i].name : NULL;
}

const char *zc_config_key_doc(size_t i)
{
    return i < sizeof(keys) / sizeof(keys[0]) ? keys[i].doc : NULL;
}

/* "unknown key 'K' (keys: a, b, ...)" from the table. */
static void unknown_key(const char *key, char *err, size_t errlen)
{
    size_t at;

    snprintf(err, errlen, "unknown key '%s' (keys:", key);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        at = strlen(err);
        if (at + 1 >= errlen)
            break;
        snprintf(err + at, errlen - at, "%s %s", i ? "," : "", keys[i].name);
    }
    at = strlen(err);
    if (at + 1 < errlen)
        snprintf(err + at, errlen - at, ")");
}

/* The boolean field a key names, or NULL. */
static bool *bool_field(zc_config *cfg, const char *key)
{
    if (strcmp(key, "same_filled") == 0)
        return &cfg->same_filled;
    if (strcmp(key, "exclusive_gets") == 0)
        return &cfg->exclusive_gets;
    if (strcmp(key, "store_raw") == 0)
        return &cfg->store_raw;
    if (strcmp(key, "active_only") == 0)
        return &cfg->active_only;
    if (strcmp(key, "dedup") == 0)
        return &cfg->dedup;
    return NULL;
}

/* Apply one key=value; 0 or -1 with a message in err. */
static int apply(zc_config *cfg, char *key, char *val, char *err, size_t errlen,
                 bool *named_compressor, bool *named_level)
{
    size_t n;
    bool b, *bp;

    if (strcmp(key, "capacity") == 0 || strcmp(key, "capacity_bytes") == 0) {
        if (parse_size(val, &n))
            goto bad_value;
        cfg->capacity_bytes = n;
    } else if (strcmp(key, "page_size") == 0) {
        if (parse_size(val, &n) || n < 512 || n > 65536 || (n & (n - 1))) {
            snprintf(err, errlen,
                     "page_size=%s: want a power of two from 512 to 65536",
                     val);
            return -1;
        }
        cfg->page_size = n;
    } else if (strcmp(key, "accept_percent") == 0) {
        if (parse_size(val, &n) || n > 100 ||
            !isdigit((unsigned char)val[strlen(val) - 1])) {
            snprintf(err, errlen, "accept_percent=%s: want 0 to 100", val);
            return -1;
        }
        cfg->accept_percent = (unsigned)n;
    } else if (strcmp(key, "hysteresis_percent") == 0) {
        if (parse_size(val, &n) || n > 100 ||
            !isdigit((unsigned char)val[strlen(val) - 1])) {
            snprintf(err, errlen, "hysteresis_percent=%s: want 0 to 100", val);
            return -1;
        }
        cfg->hysteresis_percent = (unsigned)n;
    } else if (strcmp(key, "level") == 0) {
        char *end;
        long v;
        errno = 0;
        v = strtol(val, &end, 10);
        if (errno || *end || v < -1000 || v > 1000) {
            snprintf(err, errlen, "level=%s: not a level (an integer)", val);
            return -1;
        }
        cfg->level = (int)v;
        *named_level = true;
    } else if ((bp = bool_field(cfg, key))) {
        if (parse_bool(val, &b)) {
            snprintf(err, errlen, "%s=%s: want true or false", key, val);
            return -1;
        }
        *bp = b;
    } else if (strcmp(key, "compressor") == 0) {
        const struct zc__compressor_ops *o = zc__find_compressor(val);
        if (!o) {
            const char *why = zc__backend_absent(ZC_BACKEND_COMPRESSOR, val);
            if (why) {
                snprintf(err, errlen, "compressor=%s: this library was %s", val,
                         why);
                return -1;
            }
            goto unknown_backend;
        }
        cfg->compressor = o->name;
        *named_compressor = true;
    } else if (strcmp(key, "allocator") == 0) {
        const struct zc__allocator_ops *o = zc__find_allocator(val);
        if (!o)
            goto unknown_backend;
        cfg->allocator = o->name;
    } else if (strcmp(key, "policy") == 0) {
        const struct zc__policy_ops *o = zc__find_policy(val);
        if (!o)
            goto unknown_backend;
        cfg->policy = o->name;
    } else {
        unknown_key(key, err, errlen);
        return -1;
    }
    return 0;

bad_value:
    snprintf(err, errlen, "%s=%s: not a size (e.g. 4096, 64M, 1GiB)", key, val);
    return -1;
unknown_backend:
    snprintf(err, errlen, "%s=%s: no such back-end", key, val);
    return -1;
}

/* One key=value of a spec (base/kv.h reads the spec). */
struct apply_ctx {
    zc_config *cfg;
    bool named_compressor, named_level;
};

static int apply_item(void *ctx, char *key, char *val, char *err, size_t errlen)
{
    struct apply_ctx *x = ctx;

    return apply(x->cfg, key, val, err, errlen, &x->named_compressor,
                 &x->named_level)
               ? -ZC_EINVAL
               : 0;
}

int zc_config_parse_error(zc_config *cfg, const char *spec, char *err,
                          size_t errlen)
{
    char dummy[1];
    struct apply_ctx x = {cfg, false, false};
    int rc;

    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof(dummy);
    }
    err[0] = '\0';
    if (!cfg || !spec) {
        snprintf(err, errlen, "NULL argument");
        return -ZC_EINVAL;
    }
    rc = zc__kv_each(spec, apply_item, &x, err, errlen);
    /* A level belongs to its compressor: a spec that names a compressor
     * and no level means that compressor's default. */
    if (!rc && x.named_compressor && !x.named_level)
        cfg->level = 0;
    if (!rc && cfg->level && cfg->compressor) {
        /* Checked last: the spec may name the compressor after the level. */
        const struct zc__compressor_ops *o =
            zc__find_compressor(cfg->compressor);
        if (o && (cfg->level < o->min_level || cfg->level > o->max_level)) {
            if (o->min_level == o->max_level)
                snprintf(err, errlen, "level=%d: compressor %s has no levels",
                         cfg->level, o->name);
            else
                snprintf(err, errlen,
                         "level=%d: compressor %s takes %d to %d (0: its "
                         "default, %d)",
                         cfg->level, o->name, o->min_level, o->max_level,
                         o->default_level);
            rc = -ZC_EINVAL;
        }
    }
    return rc;
}

int zc_config_parse(zc_config *cfg, const char *spec)
{
    return zc_config_parse_error(cfg, spec, NULL, 0);
}

int zc_config_format(const zc_config *cfg, char *buf, size_t len)
{
    int n;

    if (!cfg || (!buf && len))
        return -ZC_EINVAL;
#define TF(b) ((b) ? "true" : "false")
    n = snprintf(buf, len,
                 "capacity=%zu,page_size=%zu,compressor=%s,level=%d,"
                 "allocator=%s,policy=%s,accept_percent=%u,store_raw=%s,"
                 "hysteresis_percent=%u,active_only=%s,dedup=%s,"
                 "same_filled=%s,exclusive_gets=%s",
                 cfg->capacity_bytes, cfg->page_size,
                 cfg->compressor ? cfg->compressor : "", cfg->level,
                 cfg->allocator ? cfg->allocator : "",
                 cfg->policy ? cfg->policy : "", cfg->accept_percent,
                 TF(cfg->store_raw), cfg->hysteresis_percent,
                 TF(cfg->active_only), TF(cfg->dedup), TF(cfg->same_filled),
                 TF(cfg->exclusive_gets));
#undef TF
    return n < 0 ? -ZC_EINVAL : n;
}
