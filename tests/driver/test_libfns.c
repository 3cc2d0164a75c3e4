/*  test_libfns.c - the libraries' check and their functions
    (libhearth/libfns.c), on real files: the C library this test runs with
    (its functions found, a made-up name not), and copies of it altered
    one field at a time (word size, byte order, processor, file type,
    section headers gone), a text file, a short file, an object file
    made from a small source, this test's own program (an executable)
    and a missing path; each refusal's words.
*/
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <gnu/libc-version.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libhearth/libfns.h"
#include "tests/unit/testutil.h"

static char s_dir[64];
static char s_libc[4096]; /* the C library's path */

static int
s_setup (void **state)
{
    (void) state;
    Dl_info info;
    /* a function only the C library has (a sanitizer's runtime defines
       its own printf, memcpy...) */
    if (!dladdr ((void *) &gnu_get_libc_version, &info) || !info.dli_fname)
        return -1;
    snprintf (s_libc, sizeof s_libc, "%s", info.dli_fname);
    snprintf (s_dir, sizeof s_dir, "test_libfns.XXXXXX");
    hearth_test_tmpdir (s_dir);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    return hearth_test_rmtree (s_dir);
}

/* The bytes of path (size in *size); freed by the caller. */
static unsigned char *
s_read (const char *path, size_t *size)
{
    FILE *f = fopen (path, "rb");
    assert_non_null (f);
    fseek (f, 0, SEEK_END);
    long n = ftell (f);
    fseek (f, 0, SEEK_SET);
    unsigned char *data = malloc ((size_t) n);
    assert_int_equal (fread (data, 1, (size_t) n, f), (size_t) n);
    fclose (f);
    *size = (size_t) n;
    return data;
}

/* Write size bytes of data to the scratch file name; its path in out. */
static void
s_write (const char *name, const void *data, size_t size, char *out,
         size_t outsize)
{
    snprintf (out, outsize, "%s/%s", s_dir, name);
    FILE *f = fopen (out, "wb");
    assert_non_null (f);
    assert_int_equal (fwrite (data, 1, size, f), size);
    fclose (f);
}

/* libfns_new on the one path: NULL expected, its error must hold want. */
static void
s_refused (const char *path, const char *want)
{
    hearth_error_t err;
    libfns_t *fns = libfns_new (&path, 1, &err);
    assert_null (fns);
    hearth_test_contains (err.text, want, __FILE__, __LINE__);
    hearth_test_contains (err.text, path, __FILE__, __LINE__);
}

/* A copy of the C library with one change: bytes at offset set to value
   (little or big endian as the machine), written as name. */
static void
s_altered (const char *name, size_t offset, const void *value, size_t len,
           char *out, size_t outsize)
{
    size_t size;
    unsigned char *data = s_read (s_libc, &size);
    assert_true (offset + len <= size);
    memcpy (data + offset, value, len);
    s_write (name, data, size, out, outsize);
    free (data);
}

static void
test_real_library (void **state)
{
    (void) state;
    hearth_error_t err;
    const char *paths[] = {s_libc};
    libfns_t *fns = libfns_new (paths, 1, &err);
    assert_non_null (fns);
    assert_int_equal (libfns_has (fns, "printf"), 1);
    assert_int_equal (libfns_has (fns, "memcpy"), 1); /* an IFUNC */
    assert_int_equal (libfns_has (fns, "no_such_function_here"), 0);
    hearth_test_contains (libfns_names (fns), "libc.so", __FILE__, __LINE__);
    assert_null (strchr (libfns_names (fns), '/'));
    libfns_destroy (&fns);
    assert_null (fns);
}

static void
test_none (void **state)
{
    (void) state;
    hearth_error_t err;
    libfns_t *fns = libfns_new (NULL, 0, &err);
    assert_non_null (fns);
    assert_int_equal (libfns_has (fns, "printf"), 0);
    assert_string_equal (libfns_names (fns), "");
    libfns_destroy (&fns);
}

static void
test_not_elf (void **state)
{
    (void) state;
    char path[256];
    s_write ("text.so", "hello, world\n", 13, path, sizeof path);
    s_refused (path, "is not a shared library: not an ELF file");
    s_write ("short.so", ELFMAG, 4, path, sizeof path);
    s_refused (path, "not an ELF file");
    s_write ("empty.so", "", 0, path, sizeof path);
    s_refused (path, "not an ELF file");
    snprintf (path, sizeof path, "%s/missing.so", s_dir);
    s_refused (path, "cannot read library");
}

static void
test_other_machines (void **state)
{
    (void) state;
    char path[256];
    unsigned char cls = sizeof (void *) == 8 ? ELFCLASS32 : ELFCLASS64;
    s_altered ("class.so", EI_CLASS, &cls, 1, path, sizeof path);
    s_refused (path, "-bit; this machine's programs are");
    const uint16_t one = 1;
    unsigned char data =
        *(const uint8_t *) &one == 1 ? ELFDATA2MSB : ELFDATA2LSB;
    s_altered ("order.so", EI_DATA, &data, 1, path, sizeof path);
    s_refused (path, "for a machine of the other byte order");
#if defined(__aarch64__)
    uint16_t machine = EM_X86_64;
#else
    uint16_t machine = EM_AARCH64;
#endif
    s_altered ("machine.so", offsetof (Elf64_Ehdr, e_machine), &machine, 2,
               path, sizeof path);
    s_refused (path, "is built for another processor");
}

static void
test_other_types (void **state)
{
    (void) state;
    char path[256];
    uint16_t type = ET_REL;
    s_altered ("object.so", offsetof (Elf64_Ehdr, e_type), &type, 2, path,
               sizeof path);
    s_refused (path, "is an ELF object file (.o), not a shared library");
    type = ET_EXEC;
    s_altered ("exec.so", offsetof (Elf64_Ehdr, e_type), &type, 2, path,
               sizeof path);
    s_refused (path, "is an ELF executable, not a shared library");
    /* this test's own program: a position-independent executable (ET_DYN
       with DF_1_PIE) or, built without -pie, an ET_EXEC */
    s_refused ("/proc/self/exe", "not a shared library");
}

static void
test_without_sections (void **state)
{
    (void) state;
    char path[256];
    const uint64_t zero = 0; /* no section header table */
    s_altered ("stripped.so", offsetof (Elf64_Ehdr, e_shoff), &zero, 8, path,
               sizeof path);
    hearth_error_t err;
    const char *paths[] = {path};
    libfns_t *fns = libfns_new (paths, 1, &err);
    assert_non_null (fns);
    assert_int_equal (libfns_has (fns, "printf"), -1); /* cannot tell */
    libfns_destroy (&fns);
}

static void
test_first_refusal_stops (void **state)
{
    (void) state;
    char bad[256];
    s_write ("bad.so", "#!/bin/sh\n", 10, bad, sizeof bad);
    const char *paths[] = {s_libc, bad};
    hearth_error_t err;
    assert_null (libfns_new (paths, 2, &err));
    hearth_test_contains (err.text, bad, __FILE__, __LINE__);
}

int
main (void)
{
    if (sizeof (void *) != 8) /* the altered offsets are Elf64_Ehdr's */
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_real_library),
        cmocka_unit_test (test_none),
        cmocka_unit_test (test_not_elf),
        cmocka_unit_test (test_other_machines),
        cmocka_unit_test (test_other_types),
        cmocka_unit_test (test_without_sections),
        cmocka_unit_test (test_first_refusal_stops),
    };
    return cmocka_run_group_tests_name ("libfns", tests, s_setup, s_teardown);
}
