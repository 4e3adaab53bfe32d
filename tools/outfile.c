/*
 * outfile.c - output files written whole or not at all (zc_output_*()),
 * removed after a later failure only when they are still the regular
 * files the tool put in place (see outfile.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

#include "cli.h"
#include "zcache_sim.h"

FILE *outfile_open(outfile *of, const char *path)
{
    memset(of, 0, sizeof(*of));
    of->path = path;
    if (zc_output_open(path, &of->o, NULL, 0))
        return NULL; /* errno says why */
    of->f = zc_output_stream(of->o);
    return of->f;
}

void outfile_claim(outfile *of, const char *path)
{
    struct stat st;

    of->path = path;
    of->removable = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
    of->dev = st.st_dev;
    of->ino = st.st_ino;
}

int outfile_close(outfile *of)
{
    int rc;

    if (!of->o)
        return 0;
    rc = zc_output_commit(of->o, NULL, 0);
    of->o = NULL;
    of->f = NULL;
    if (rc)
        return -1;
    /* in place now: a later failure removes it if it is still this file */
    outfile_claim(of, of->path);
    return 0;
}

void outfile_discard(outfile *of)
{
    struct stat st;

    zc_output_abandon(of->o); /* not finished: the old file stays */
    of->o = NULL;
    of->f = NULL;
    if (of->removable && lstat(of->path, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_dev == of->dev && st.st_ino == of->ino)
        unlink(of->path);
    of->removable = false;
}

int outfile_stdout_close(const char *prog)
{
    int bad, err;

    errno = 0;
    bad = fflush(stdout) != 0;
    err = errno;
    bad |= ferror(stdout) != 0;
    if (fclose(stdout) != 0) {
        bad = 1;
        if (!err)
            err = errno;
    }
    if (!bad)
        return 0;
    fprintf(stderr, "%s: cannot write standard output: %s\n", prog,
            err ? strerror(err) : "write error");
    return 1;
}

void out_json_string(FILE *f, const char *s)
{
    char buf[512], *big = NULL;
    size_t n = zc_json_quote(s, buf, sizeof(buf));

    if (n >= sizeof(buf)) {
        if (!(big = malloc(n + 1)))
            die(1, "%s", "out of memory");
        zc_json_quote(s, big, n + 1);
    }
    fputs(big ? big : buf, f);
    free(big);
}

void out_csv_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

const char *outfile_input_clash(const char *out, const char *const *inputs,
                                size_t n)
{
    struct stat so, si;

    if (!out || stat(out, &so))
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (inputs[i] && !stat(inputs[i], &si) && si.st_dev == so.st_dev &&
            si.st_ino == so.st_ino)
            return inputs[i];
    return NULL;
}

const char *outfile_dir_error(const char *path)
{
    static char msg[4200];
    const char *slash = strrchr(path, '/');
    char dir[4096];
    struct stat st;

    if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
        return NULL;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(msg, sizeof(msg), "%s: no such directory", dir);
        return msg;
    }
    return NULL;
}

void outfile_refuse_clash(const char *opt, const char *out,
                          const char *const *suffixes, size_t n,
                          const char *const *traces, size_t ntraces,
                          const char *content_spec)
{
    const char **in = calloc(ntraces + 1, sizeof(*in));
    char path[4096];

    if (!in || !out)
        goto done;
    for (size_t i = 0; i < ntraces; i++)
        in[i] = traces[i];
    in[ntraces] = zc_content_file(content_spec);
    for (size_t k = 0; k < (n ? n : 1); k++) {
        const char *clash;
        snprintf(path, sizeof(path), "%s%s", out, n ? suffixes[k] : "");
        if ((clash = outfile_input_clash(path, in, ntraces + 1))) {
            char msg[8400];
            bool same = !strcmp(clash, path); /* else a link to it */
            if (!strcmp(path, out))
                snprintf(msg, sizeof(msg),
                         "%s %s: that is %s%san input of this run", opt, out,
                         same ? "" : clash, same ? "" : ", ");
            else
                snprintf(msg, sizeof(msg),
                         "%s %s: it would write %s, an input of this run%s%s",
                         opt, out, path, same ? "" : ": ", same ? "" : clash);
            free(in);
            die(2, "%s", msg);
        }
    }
done:
    free(in);
}

void outfile_refuse_same(const char *opt, const char *out, const char *prefix,
                         const char *const *suffixes, size_t n)
{
    char path[4096];
    struct stat a, b;

    if (!out || !prefix)
        return;
    for (size_t k = 0; k < n; k++) {
        snprintf(path, sizeof(path), "%s%s", prefix, suffixes[k]);
        if (!strcmp(out, path) ||
            (!stat(out, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
             a.st_ino == b.st_ino))
            die(2, "%s %s: that is %s, an output of --plot %s", opt, out, path,
                prefix);
    }
}
