/*
 * core/registry.c - back-ends found by name.
 *
 * Each kind of back-end (compressor, allocator, policy) is a const table of
 * ops tables.  Adding a back-end is adding one line here and one file in
 * src/core/compress/, src/core/alloc/ or src/core/policy/; the configuration
 * parser, the tools' --help and the conformance tests find it through these
 * tables and never through an if-chain of names.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "internal.h"

static const struct zc__compressor_ops *const compressors[] = {
    &zc__compressor_lzo,
#ifdef ZC_HAVE_LZ4
    &zc__compressor_lz4,
#endif
#ifdef ZC_HAVE_ZSTD
    &zc__compressor_zstd,
#endif
    &zc__compressor_none,
};

/* Back-ends this source tree has but this build left out, and why: an
 * unknown name and a missing optional library deserve different errors. */
static const struct {
    zc_backend_kind kind;
    const char *name, *why;
} absent[] = {
#ifndef ZC_HAVE_LZ4
    {ZC_BACKEND_COMPRESSOR, "lz4", "built without liblz4 (liblz4-dev)"},
#endif
#ifndef ZC_HAVE_ZSTD
    {ZC_BACKEND_COMPRESSOR, "zstd", "built without libzstd (libzstd-dev)"},
#endif
    {ZC_BACKEND_COMPRESSOR, NULL, NULL},
};

static const struct zc__allocator_ops *const allocators[] = {
    &zc__allocator_zsmalloc,
    &zc__allocator_zbud,
    &zc__allocator_z3fold,
    &zc__allocator_xvmalloc,
};

static const struct zc__policy_ops *const policies[] = {
    &zc__policy_lru,       &zc__policy_fifo, &zc__policy_clock,
    &zc__policy_frame_lru, &zc__policy_gdsf,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const struct zc__compressor_ops *zc__find_compressor(const char *name)
{
    for (size_t i = 0; i < COUNT(compressors); i++)
        if (strcmp(compressors[i]->name, name) == 0)
            return compressors[i];
    return NULL;
}

const struct zc__allocator_ops *zc__find_allocator(const char *name)
{
    for (size_t i = 0; i < COUNT(allocators); i++)
        if (strcmp(allocators[i]->name, name) == 0)
            return allocators[i];
    return NULL;
}

const struct zc__policy_ops *zc__find_policy(const char *name)
{
    for (size_t i = 0; i < COUNT(policies); i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return NULL;
}

const char *zc__backend_absent(zc_backend_kind kind, const char *name)
{
    for (size_t i = 0; absent[i].name; i++)
        if (absent[i].kind == kind && strcmp(absent[i].name, name) == 0)
            return absent[i].why;
    return NULL;
}

/* The name and doc of the i-th back-end of a kind, via the first two
 * fields that every ops table starts with. */
static int lookup(zc_backend_kind kind, size_t i, const char **name,
                  const char **doc)
{
    switch (kind) {
    case ZC_BACKEND_COMPRESSOR:
        if (i >= COUNT(compressors))
            return -1;
        *name = compressors[i]->name;
        *doc = compressors[i]->doc;
        return 0;
    case ZC_BACKEND_ALLOCATOR:
        if (i >= COUNT(allocators))
            return -1;
        *name = allocators[i]->name;
        *doc = allocators[i]->doc;
        return 0;
    case ZC_BACKEND_POLICY:
        if (i >= COUNT(policies))
            return -1;
        *name = policies[i]->name;
        *doc = policies[i]->doc;
        return 0;
    }
    return -1;
}

const char *zc_backend_name(zc_backend_kind kind, size_t i)
{
    const char *name, *doc;

    return lookup(kind, i, &name, &doc) ? NULL : name;
}

const char *zc_backend_doc(zc_backend_kind kind, size_t i)
{
    const char *name, *doc;

    return lookup(kind, i, &name, &doc) ? NULL : doc;
}
