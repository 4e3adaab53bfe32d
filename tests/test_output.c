/*
 * test_output.c - output files written whole or not at all
 * (zc_output_*(), zcache_sim.h), and the library's writers over them.
 *
 * Until a commit the file of the output's name is what it was (absent,
 * or its old bytes), whatever was written; a commit puts exactly what was
 * written in place; an abandon, a failed writer, or
 * zc_output_remove_partial() (what a signal handler calls) leaves no
 * temporary file behind; what cannot be renamed over (a FIFO, a device)
 * is written in place and never removed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "zcache_sim.h"
#include "zt_util.h"

/* The names in the test directory that are neither name nor "." / "..":
 * temporary files left behind. */
static int strays(const char *const *keep, size_t nkeep)
{
    DIR *d = opendir(zt_tmpdir());
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d))) {
        bool known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        for (size_t i = 0; i < nkeep && !known; i++)
            known = !strcmp(e->d_name, keep[i]);
        if (!known) {
            print_message("stray file: %s\n", e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

static void assert_file_is(const char *path, const char *want)
{
    size_t len;
    unsigned char *got = zt_read_file(path, &len);

    got[len] = '\0';
    assert_string_equal((char *)got, want);
    free(got);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A new file appears only at the commit, with what was written. */
static void test_output_new_file_appears_whole(void **state)
{
    (void)state;
    const char *path = zt_tmp_path("new.txt");
    const char *keep[] = {"new.txt"};
    zc_output *o;
    char err[256];

    unlink(path);
    assert_int_equal(zc_output_open(path, &o, err, sizeof(err)), 0);
    assert_true(zc_output_atomic(o));
    assert_string_equal(zc_output_path(o), path);
    assert_string_not_equal(zc_output_file(o), path);
    fputs("part one\n", zc_output_stream(o));
    fflush(zc_output_stream(o));
    assert_false(exists(path)); /* a reader sees nothing yet */
    fputs("part two\n", zc_output_stream(o));
    assert_int_equal(zc_output_commit(o, err, sizeof(err)), 0);
    assert_file_is(path, "part one\npart two\n");
    assert_int_equal(strays(keep, 1), 0);
    unlink(path);
}

/* An old file stays whole until the commit, and after an abandon; the
 * new file keeps the old one's mode. */
static void test_output_old_file_stays_until_commit(void **state)
{
    (void)state;
    const char *path = zt_tmp_path("old.txt");
    const char *keep[] = {"old.txt"};
    struct stat st;
    zc_output *o;

    zt_write_file(path, "old\n", 4);
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(zc_output_open(path, &o, NULL, 0), 0);
    fputs("new, cut", zc_output_stream(o));
    fflush(zc_output_stream(o));
    assert_file_is(path, "old\n");
    zc_output_abandon(o);
    assert_file_is(path, "old\n");
    assert_int_equal(strays(keep, 1), 0);

    assert_int_equal(zc_output_open(path, &o, NULL, 0), 0);
    fputs("new\n", zc_output_stream(o));
    assert_file_is(path, "old\n");
    assert_int_equal(zc_output_commit(o, NULL, 0), 0);
    assert_file_is(path, "new\n");
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_int_equal(strays(keep, 1), 0);
    unlink(path);
}

/* What a signal handler calls removes every temporary file still open;
 * the old files stay. */
static void test_output_remove_partial(void **state)
{
    (void)state;
    const char *a = zt_tmp_path("a.txt"), *b = zt_tmp_path("b.txt");
    const char *keep[] = {"a.txt"};
    zc_output *oa, *ob;

    zt_write_file(a, "old a\n", 6);
    unlink(b);
    assert_int_equal(zc_output_open(a, &oa, NULL, 0), 0);
    assert_int_equal(zc_output_open(b, &ob, NULL, 0), 0);
    fputs("new a", zc_output_stream(oa));
    fputs("new b", zc_output_stream(ob));
    assert_true(exists(zc_output_file(oa)));
    assert_true(exists(zc_output_file(ob)));
    zc_output_remove_partial();
    assert_false(exists(zc_output_file(oa)));
    assert_false(exists(zc_output_file(ob)));
    assert_file_is(a, "old a\n");
    assert_false(exists(b));
    assert_int_equal(strays(keep, 1), 0);
    /* the objects are still there to free; a commit now fails, and leaves
     * the old file */
    assert_int_not_equal(zc_output_commit(oa, NULL, 0), 0);
    zc_output_abandon(ob);
    assert_file_is(a, "old a\n");
    unlink(a);
}

/* A symlink to a regular file: the target is replaced, the link stays. */
static void test_output_follows_a_symlink(void **state)
{
    (void)state;
    const char *target = zt_tmp_path("target.txt");
    const char *link = zt_tmp_path("link.txt");
    const char *keep[] = {"target.txt", "link.txt"};
    struct stat st;
    zc_output *o;

    zt_write_file(target, "old\n", 4);
    unlink(link);
    assert_int_equal(symlink("target.txt", link), 0);
    assert_int_equal(zc_output_open(link, &o, NULL, 0), 0);
    fputs("new\n", zc_output_stream(o));
    assert_int_equal(zc_output_commit(o, NULL, 0), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_is(target, "new\n");
    assert_int_equal(strays(keep, 2), 0);
    unlink(link);
    unlink(target);
}

/* A FIFO and a device are written in place, and never removed. */
static void test_output_fifo_and_device_in_place(void **state)
{
    (void)state;
    const char *fifo = zt_tmp_path("fifo");
    const char *keep[] = {"fifo"};
    struct stat st;
    zc_output *o;
    char buf[16] = "";
    int rd;

    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    rd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so the open goes */
    assert_true(rd >= 0);
    assert_int_equal(zc_output_open(fifo, &o, NULL, 0), 0);
    assert_false(zc_output_atomic(o));
    assert_string_equal(zc_output_file(o), fifo);
    fputs("x\n", zc_output_stream(o));
    assert_int_equal(zc_output_commit(o, NULL, 0), 0);
    assert_int_equal(read(rd, buf, sizeof(buf) - 1), 2);
    assert_string_equal(buf, "x\n");
    close(rd);
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(strays(keep, 1), 0);
    unlink(fifo);

    /* a pack is read back as it is written: a FIFO or device is refused */
    {
        zc_pack_writer *pw;
        char err[256];
        assert_int_equal(zc_pack_writer_open("/dev/null", 4096, 0, &pw, err,
                                             sizeof(err)),
                         -ZC_EINVAL);
        assert_non_null(strstr(err, "/dev/null: not a regular file"));
    }
    /* a link whose target's name is not the file (a memfd's) */
    {
        FILE *t = tmpfile(); /* unlinked: /proc/self/fd/N names no path */
        char p[64];
        assert_non_null(t);
        snprintf(p, sizeof(p), "/proc/self/fd/%d", fileno(t));
        assert_int_equal(zc_output_open(p, &o, NULL, 0), 0);
        assert_false(zc_output_atomic(o));
        fputs("y\n", zc_output_stream(o));
        assert_int_equal(zc_output_commit(o, NULL, 0), 0);
        assert_int_equal(fseek(t, 0, SEEK_END), 0);
        assert_int_equal(ftell(t), 2);
        fclose(t);
    }
    assert_int_equal(zc_output_open("/dev/null", &o, NULL, 0), 0);
    assert_false(zc_output_atomic(o));
    fputs("x\n", zc_output_stream(o));
    zc_output_abandon(o);
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
}

/* A write error (a full device) fails the commit, naming the path. */
static void test_output_write_error_fails_commit(void **state)
{
    (void)state;
    zc_output *o;
    char err[256];

    if (access("/dev/full", W_OK) != 0)
        skip();
    assert_int_equal(zc_output_open("/dev/full", &o, err, sizeof(err)), 0);
    fputs("x\n", zc_output_stream(o));
    assert_int_equal(zc_output_commit(o, err, sizeof(err)), -ZC_EIO);
    assert_non_null(strstr(err, "/dev/full"));
}

/* Bad paths: one-line errors naming them, nothing made. */
static void test_output_refuses_bad_paths(void **state)
{
    (void)state;
    const char *keep[] = {"sub"};
    zc_output *o = (zc_output *)1;
    char err[256], path[512];

    assert_int_equal(zc_output_open("", &o, err, sizeof(err)), -ZC_EINVAL);
    assert_null(o);
    assert_int_equal(mkdir(zt_tmp_path("sub"), 0700), 0);
    assert_int_equal(zc_output_open(zt_tmp_path("sub"), &o, err, sizeof(err)),
                     -ZC_EIO);
    assert_non_null(strstr(err, "sub"));
    snprintf(path, sizeof(path), "%s/none/x", zt_tmpdir());
    assert_int_equal(zc_output_open(path, &o, err, sizeof(err)), -ZC_EIO);
    assert_non_null(strstr(err, "none/x"));
    assert_int_equal(strays(keep, 1), 0);
    rmdir(zt_tmp_path("sub"));
}

/* The library's writers: a stream abandoned part way leaves the old file
 * whole and no temporary file; one closed puts the whole stream in
 * place, which reads back. */
static void test_output_writers_whole_or_nothing(void **state)
{
    (void)state;
    const char *zca = zt_tmp_path("s.zca"), *zct = zt_tmp_path("s.zct");
    const char *zcp = zt_tmp_path("s.zcp");
    const char *keep[] = {"s.zca", "s.zct", "s.zcp"};
    zc_access_writer_options ao = {.page_size = 4096};
    zc_ops_writer_options wo = {.page_size = 4096};
    zc_request req = {.ino = 5, .offset = 0, .length = 4096};
    zc_access_writer *aw;
    zc_ops_writer *ow;
    zc_pack_writer *pw;
    unsigned char page[4096];
    char err[512];

    zt_write_file(zca, "old", 3);
    zt_write_file(zct, "old", 3);
    zt_write_file(zcp, "old", 3);
    assert_int_equal(zc_access_writer_open(zca, &ao, &aw, err, sizeof(err)), 0);
    assert_int_equal(zc_ops_writer_open(zct, &wo, &ow, err, sizeof(err)), 0);
    assert_int_equal(zc_pack_writer_open(zcp, 4096, 0, &pw, err, sizeof(err)),
                     0);
    for (int i = 0; i < 100; i++) {
        req.offset = (uint64_t)i * 4096;
        req.time_ns = (uint64_t)i;
        assert_int_equal(zc_access_write(aw, &req), 0);
        zt_fill_random(page, sizeof(page), (uint64_t)i);
        assert_int_equal(zc_pack_add(pw, page, NULL), 0);
    }
    zc_access_writer_abandon(aw);
    zc_ops_writer_abandon(ow);
    zc_pack_writer_abandon(pw);
    assert_file_is(zca, "old");
    assert_file_is(zct, "old");
    assert_file_is(zcp, "old");
    assert_int_equal(strays(keep, 3), 0);

    assert_int_equal(zc_access_writer_open(zca, &ao, &aw, err, sizeof(err)), 0);
    assert_int_equal(zc_access_write(aw, &req), 0);
    assert_file_is(zca, "old");
    assert_int_equal(zc_access_writer_close(aw, err, sizeof(err)), 0);
    assert_int_equal(strays(keep, 3), 0);
    {
        zc_trace *t;
        zc_request got;
        const char *paths[] = {zca};
        assert_int_equal(zc_trace_open(paths, 1, NULL, &t, err, sizeof(err)),
                         0);
        assert_int_equal(zc_trace_next(t, &got), 1);
        assert_int_equal(got.ino, 5);
        assert_int_equal(zc_trace_next(t, &got), 0);
        zc_trace_close(t);
    }
    unlink(zca);
    unlink(zct);
    unlink(zcp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_new_file_appears_whole),
        cmocka_unit_test(test_output_old_file_stays_until_commit),
        cmocka_unit_test(test_output_remove_partial),
        cmocka_unit_test(test_output_follows_a_symlink),
        cmocka_unit_test(test_output_fifo_and_device_in_place),
        cmocka_unit_test(test_output_write_error_fails_commit),
        cmocka_unit_test(test_output_refuses_bad_paths),
        cmocka_unit_test(test_output_writers_whole_or_nothing),
    };
    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
