/*
 * sim/model/pcm.c - the registry of page-cache models and the resident set
 * they share (pcm.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "common/files.h"
#include "base/lptab.h"
#include "pcm.h"

static const struct zc__pcm_ops *const models[] = {
    &zc__pcm_lru,
    &zc__pcm_linux,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const struct zc__pcm_ops *zc__pcm_find(const char *name)
{
    for (size_t i = 0; name && i < COUNT(models); i++)
        if (strcmp(models[i]->name, name) == 0)
            return models[i];
    return NULL;
}

const char *zc_page_cache_model_name(size_t i)
{
    return i < COUNT(models) ? models[i]->name : NULL;
}

const char *zc_page_cache_model_doc(size_t i)
{
    return i < COUNT(models) ? models[i]->doc : NULL;
}

/* ---- the resident set ---------------------------------------------------- */

static uint64_t table_size(uint64_t nodes)
{
    uint64_t t = 16;

    while (t < nodes * 2)
        t *= 2;
    return t;
}

int zc__pcm_set_init(struct zc__pcm_set *s, uint64_t pages)
{
    uint64_t t;

    memset(s, 0, sizeof(*s));
    s->free_node = ZC__PCM_NIL;
    if (pages < 16)
        pages = 16;
    if (pages >= ZC__PCM_NIL / 2)
        return -ZC_EINVAL;
    t = table_size(pages);
    s->nodes = malloc(pages * sizeof(*s->nodes));
    s->table = calloc(t, sizeof(*s->table));
    if (!s->nodes || !s->table) {
        zc__pcm_set_free(s);
        return -ZC_ENOMEM;
    }
    s->nodes_cap = (uint32_t)pages;
    s->mask = t - 1;
    return 0;
}

void zc__pcm_set_free(struct zc__pcm_set *s)
{
    free(s->nodes);
    free(s->table);
    memset(s, 0, sizeof(*s));
}

static uint64_t home(const struct zc__pcm_set *s, uint32_t file,
                     uint64_t page)
{
    return zc__page_hash(file, page) & s->mask;
}

uint32_t zc__pcm_set_find(const struct zc__pcm_set *s, uint32_t file,
                          uint64_t page)
{
    for (uint64_t i = home(s, file, page); s->table[i];
         i = (i + 1) & s->mask) {
        const struct zc__pcm_node *n = &s->nodes[s->table[i] - 1];
        if (n->page == page && n->file == file)
            return s->table[i] - 1;
    }
    return ZC__PCM_NIL;
}

/* Room for one more node: the node array and the table doubled (every
 * resident node entered in the new table). */
static int grow(struct zc__pcm_set *s)
{
    uint64_t cap = (uint64_t)s->nodes_cap * 2, t = table_size(cap);
    struct zc__pcm_node *nodes;
    uint32_t *table;

    if (cap >= ZC__PCM_NIL / 2)
        return -ZC_ENOMEM;
    nodes = realloc(s->nodes, cap * sizeof(*nodes));
    if (!nodes)
        return -ZC_ENOMEM;
    s->nodes = nodes;
    s->nodes_cap = (uint32_t)cap;
    table = calloc(t, sizeof(*table));
    if (!table)
        return -ZC_ENOMEM;
    for (uint64_t j = 0; j <= s->mask; j++) {
        uint64_t i;
        if (!s->table[j])
            continue;
        {
            const struct zc__pcm_node *n = &s->nodes[s->table[j] - 1];
            i = zc__page_hash(n->file, n->page) & (t - 1);
        }
        while (table[i])
            i = (i + 1) & (t - 1);
        table[i] = s->table[j];
    }
    free(s->table);
    s->table = table;
    s->mask = t - 1;
    return 0;
}

int zc__pcm_set_add(struct zc__pcm_set *s, uint32_t file, uint64_t page,
                    uint32_t *node)
{
    uint32_t n;
    uint64_t i;

    if (s->free_node == ZC__PCM_NIL && s->nnodes == s->nodes_cap) {
        int rc = grow(s);
        if (rc)
            return rc;
    }
    if (s->free_node != ZC__PCM_NIL) {
        n = s->free_node;
        s->free_node = s->nodes[n].next;
    } else {
        n = s->nnodes++;
    }
    s->nodes[n].page = page;
    s->nodes[n].file = file;
    s->nodes[n].list = 0;
    s->nodes[n].flags = 0;
    s->nodes[n].prev = s->nodes[n].next = ZC__PCM_NIL;
    for (i = home(s, file, page); s->table[i]; i = (i + 1) & s->mask)
        ;
    s->table[i] = n + 1;
    s->used++;
    *node = n;
    return 0;
}

/* The table's slots (node + 1), for the one deletion rule. */
static bool set_empty(const void *ctx, uint64_t j)
{
    return !((const struct zc__pcm_set *)ctx)->table[j];
}

static uint64_t set_home(const void *ctx, uint64_t j)
{
    const struct zc__pcm_set *s = ctx;
    const struct zc__pcm_node *y = &s->nodes[s->table[j] - 1];

    return zc__page_hash(y->file, y->page);
}

static void set_move(void *ctx, uint64_t to, uint64_t from)
{
    struct zc__pcm_set *s = ctx;

    s->table[to] = s->table[from];
}

static void set_clear(void *ctx, uint64_t i)
{
    ((struct zc__pcm_set *)ctx)->table[i] = 0;
}

static const struct zc__lp_ops set_ops = {set_empty, set_home, set_move,
                                          set_clear};

void zc__pcm_set_remove(struct zc__pcm_set *s, uint32_t node)
{
    const struct zc__pcm_node *x = &s->nodes[node];
    uint64_t i = home(s, x->file, x->page);

    while (s->table[i] != node + 1)
        i = (i + 1) & s->mask;
    zc__lp_delete(s, s->mask, i, &set_ops);
    s->nodes[node].next = s->free_node;
    s->free_node = node;
    s->used--;
}

void zc__pcm_list_init(struct zc__pcm_list *l)
{
    l->head = l->tail = ZC__PCM_NIL;
    l->n = 0;
}

void zc__pcm_list_unlink(struct zc__pcm_set *s, struct zc__pcm_list *l,
                         uint32_t n)
{
    struct zc__pcm_node *x = &s->nodes[n];

    if (x->prev != ZC__PCM_NIL)
        s->nodes[x->prev].next = x->next;
    else
        l->head = x->next;
    if (x->next != ZC__PCM_NIL)
        s->nodes[x->next].prev = x->prev;
    else
        l->tail = x->prev;
    l->n--;
}

void zc__pcm_list_push_head(struct zc__pcm_set *s, struct zc__pcm_list *l,
                            uint32_t n)
{
    struct zc__pcm_node *x = &s->nodes[n];

    x->prev = ZC__PCM_NIL;
    x->next = l->head;
    if (l->head != ZC__PCM_NIL)
        s->nodes[l->head].prev = n;
    l->head = n;
    if (l->tail == ZC__PCM_NIL)
        l->tail = n;
    l->n++;
}
