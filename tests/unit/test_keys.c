/*  test_keys.c - key files (modes, refusals, no overwrite, the user a
    key names) and tokens. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/keys.h"
#include "tests/unit/testutil.h"

static char s_dir[64];

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_dir, sizeof s_dir, "/tmp/hearth-keys-XXXXXX");
    return mkdtemp (s_dir) ? 0 : -1;
}

static int
s_teardown (void **state)
{
    (void) state;
    char cmd[128];
    snprintf (cmd, sizeof cmd, "rm -rf %s", s_dir);
    return system (cmd);
}

static void
s_path (char *buf, size_t size, const char *name)
{
    snprintf (buf, size, "%s/%s", s_dir, name);
}

static void
test_save_and_load (void **state)
{
    (void) state;
    char base[128], secret[160], pub[HEARTH_KEY_TXT_LEN + 1];
    hearth_error_t err;
    struct stat st;
    s_path (base, sizeof base, "a.key");
    snprintf (secret, sizeof secret, "%s_secret", base);
    zcert_t *cert = zcert_new ();
    assert_int_equal (hearth_keys_save (cert, base, "a", &err), 0);
    assert_int_equal (stat (secret, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0600);
    assert_int_equal (stat (base, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0644);
    /* The public key reads back from either file. */
    assert_int_equal (hearth_keys_load_public (base, pub, sizeof pub, &err), 0);
    assert_string_equal (pub, zcert_public_txt (cert));
    assert_int_equal (hearth_keys_load_public (secret, pub, sizeof pub, &err),
                      0);
    assert_string_equal (pub, zcert_public_txt (cert));
    zcert_t *loaded = hearth_keys_load_secret (secret, &err);
    assert_non_null (loaded);
    assert_true (zcert_eq (loaded, cert));
    /* Never overwritten. */
    assert_int_equal (hearth_keys_save (cert, base, "a", &err), -1);
    assert_contains (err.text, "exists already");
    zcert_destroy (&loaded);
    zcert_destroy (&cert);
}

static void
test_secret_refused_when_readable (void **state)
{
    (void) state;
    char base[128], secret[160];
    hearth_error_t err;
    s_path (base, sizeof base, "leaky.key");
    snprintf (secret, sizeof secret, "%s_secret", base);
    zcert_t *cert = zcert_new ();
    assert_int_equal (hearth_keys_save (cert, base, "leaky", &err), 0);
    zcert_destroy (&cert);
    assert_int_equal (chmod (secret, 0640), 0);
    assert_null (hearth_keys_load_secret (secret, &err));
    assert_contains (err.text, "may be read by others (mode 0640)");
    assert_contains (err.text, "chmod 600");
    assert_int_equal (chmod (secret, 0604), 0);
    assert_null (hearth_keys_load_secret (secret, &err));
    /* A public file has no secret key to load. */
    assert_int_equal (chmod (base, 0600), 0);
    assert_null (hearth_keys_load_secret (base, &err));
    assert_contains (err.text, "holds no secret key");
    /* ... and, readable by all as a public key is, it is named as the
       wrong file, not as a secret to chmod (issue 13). */
    assert_int_equal (chmod (base, 0644), 0);
    assert_null (hearth_keys_load_secret (base, &err));
    assert_contains (err.text, "is a public key");
    assert_contains (err.text, secret);
    assert_null (strstr (err.text, "chmod"));
}

static void
test_bad_files (void **state)
{
    (void) state;
    char path[128], pub[HEARTH_KEY_TXT_LEN + 1];
    hearth_error_t err;
    s_path (path, sizeof path, "missing.key");
    assert_int_equal (hearth_keys_load_public (path, pub, sizeof pub, &err),
                      -1);
    assert_contains (err.text, "cannot read key file");
    assert_null (hearth_keys_load_secret (path, &err));
    s_path (path, sizeof path, "junk.key");
    FILE *f = fopen (path, "w");
    fputs ("not a certificate\n", f);
    fclose (f);
    chmod (path, 0600);
    assert_int_equal (hearth_keys_load_public (path, pub, sizeof pub, &err),
                      -1);
    assert_contains (err.text, "is not a key file");
    assert_null (hearth_keys_load_secret (path, &err));
}

/* A key file with this metadata section (after "metadata"), its
   public key copied from a saved key's: its path into path. */
static void
s_key_with_meta (char *path, size_t size, const char *name, const char *meta)
{
    char base[128];
    hearth_error_t err;
    s_path (base, sizeof base, "src.key");
    unlink (base);
    char secret[160];
    snprintf (secret, sizeof secret, "%s_secret", base);
    unlink (secret);
    zcert_t *cert = zcert_new ();
    assert_int_equal (hearth_keys_save (cert, base, "src", &err), 0);
    s_path (path, size, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fprintf (f, "metadata\n%scurve\n    public-key = \"%s\"\n", meta,
             zcert_public_txt (cert));
    fclose (f);
    zcert_destroy (&cert);
}

/* The user a key file names into user (HEARTH_USER_MAX + 1 bytes), and
   its public key into pub: the read's return. */
static int
s_user_of (const char *path, char *pub, char *user, hearth_error_t *err)
{
    return hearth_keys_load_public_user (path, pub, HEARTH_KEY_TXT_LEN + 1,
                                         user, HEARTH_USER_MAX + 1, err);
}

static void
test_user (void **state)
{
    (void) state;
    char path[128], pub[HEARTH_KEY_TXT_LEN + 1], user[HEARTH_USER_MAX + 1];
    hearth_error_t err;
    /* hearth-keygen --user: set before the save, read back */
    s_path (path, sizeof path, "u.key");
    zcert_t *cert = zcert_new ();
    zcert_set_meta (cert, "user", "%s", "alice");
    assert_int_equal (hearth_keys_save (cert, path, "u", &err), 0);
    assert_int_equal (s_user_of (path, pub, user, &err), 0);
    assert_string_equal (pub, zcert_public_txt (cert));
    assert_string_equal (user, "alice");
    zcert_destroy (&cert);
    /* none named: "" */
    s_key_with_meta (path, sizeof path, "none.key", "    name = \"x\"\n");
    assert_int_equal (s_user_of (path, pub, user, &err), 0);
    assert_string_equal (user, "");
    /* a user line outside metadata does not count */
    s_key_with_meta (path, sizeof path, "out.key",
                     "other\n    user = \"bob\"\n");
    assert_int_equal (s_user_of (path, pub, user, &err), 0);
    assert_string_equal (user, "");
    /* a key named "username" is not "user" */
    s_key_with_meta (path, sizeof path, "un.key", "    username = \"bob\"\n");
    assert_int_equal (s_user_of (path, pub, user, &err), 0);
    assert_string_equal (user, "");
    /* what cannot be a user name fails the read, saying so */
    static const char *const bad[] = {
        "    user = \"../etc\"\n",
        "    user = \"-rf\"\n",
        "    user = \"a b\"\n",
        "    user = \"\"\n",
        "    user = alice\n",
        "    user = \"abcdefghijklmnopqrstuvwxyz0123456\"\n", /* 33 */
        "    user = \"abcdefghijklmnopqrstuvwxyz0123456789abcdef\"\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s_key_with_meta (path, sizeof path, "bad.key", bad[i]);
        assert_int_equal (hearth_keys_load_public_user (
                              path, pub, sizeof pub, user, sizeof user, &err),
                          -1);
        assert_contains (err.text, "is not a user name");
        /* the plain public key still reads */
        assert_int_equal (hearth_keys_load_public (path, pub, sizeof pub, &err),
                          0);
    }
    /* 32 characters is the longest */
    s_key_with_meta (path, sizeof path, "long.key",
                     "    user = \"abcdefghijklmnopqrstuvwxyz012345\"\n");
    assert_int_equal (s_user_of (path, pub, user, &err), 0);
    assert_string_equal (user, "abcdefghijklmnopqrstuvwxyz012345");
}

static void
test_user_names (void **state)
{
    (void) state;
    assert_true (hearth_user_name_valid ("alice"));
    assert_true (hearth_user_name_valid ("svc_batch-2.x"));
    assert_true (hearth_user_name_valid ("1000"));
    assert_false (hearth_user_name_valid (""));
    assert_false (hearth_user_name_valid ("-x"));
    assert_false (hearth_user_name_valid (".x"));
    assert_false (hearth_user_name_valid ("a/b"));
    assert_false (hearth_user_name_valid ("a:b"));
    assert_false (hearth_user_name_valid ("al ice"));
    assert_false (hearth_user_name_valid ("abcdefghijklmnopqrstuvwxyz0123456"));
}

/* A secret key file's text, as a worker writes a driver's key: read
   back by Hearth's parser and by czmq's, its public half derived from
   the secret; anything but a key refused. */
static void
test_secret_text (void **state)
{
    (void) state;
    char pub[HEARTH_KEY_TXT_LEN + 1], sec[HEARTH_KEY_TXT_LEN + 1];
    char text[512], path[128], got[HEARTH_KEY_TXT_LEN + 1];
    hearth_error_t err;
    assert_int_equal (zmq_curve_keypair (pub, sec), 0);
    int n = hearth_keys_secret_text (sec, "driver-20240101000000-0001", text,
                                     sizeof text, &err);
    assert_true (n > 0 && (size_t) n == strlen (text));
    s_path (path, sizeof path, "driver.key_secret");
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    assert_int_equal (fwrite (text, 1, (size_t) n, f), (size_t) n);
    fclose (f);
    assert_int_equal (chmod (path, 0600), 0);
    zcert_t *cert = hearth_keys_load_secret (path, &err);
    assert_non_null (cert);
    assert_string_equal (zcert_public_txt (cert), pub);
    assert_string_equal (zcert_secret_txt (cert), sec);
    zcert_destroy (&cert);
    cert = zcert_load (path); /* czmq's own tools read it */
    assert_non_null (cert);
    assert_string_equal (zcert_public_txt (cert), pub);
    assert_string_equal (zcert_meta (cert, "name"),
                         "driver-20240101000000-0001");
    zcert_destroy (&cert);
    assert_int_equal (hearth_keys_load_public (path, got, sizeof got, &err), 0);
    assert_string_equal (got, pub);
    /* not a key: too short, not Z85, none */
    assert_int_equal (
        hearth_keys_secret_text ("short", "x", text, sizeof text, &err), -1);
    assert_string_equal (err.text, "not a CURVE secret key");
    memset (sec, '"', HEARTH_KEY_TXT_LEN);
    assert_int_equal (
        hearth_keys_secret_text (sec, "x", text, sizeof text, &err), -1);
    assert_int_equal (
        hearth_keys_secret_text (NULL, "x", text, sizeof text, &err), -1);
    /* a buffer too small holds nothing */
    assert_int_equal (zmq_curve_keypair (pub, sec), 0);
    assert_int_equal (hearth_keys_secret_text (sec, "x", text, 64, &err), -1);
    assert_int_equal (text[0], '\0');
}

static void
test_tokens (void **state)
{
    (void) state;
    char a[64], b[64];
    assert_int_equal (hearth_keys_token (a, sizeof a), 0);
    assert_int_equal (hearth_keys_token (b, sizeof b), 0);
    assert_int_equal (strlen (a), 40);
    assert_string_not_equal (a, b);
    assert_true (hearth_keys_token_eq (a, a));
    assert_false (hearth_keys_token_eq (a, b));
    assert_false (hearth_keys_token_eq (a, ""));
    assert_int_equal (hearth_keys_token (a, 10), -1); /* too small */
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_save_and_load),
        cmocka_unit_test (test_secret_refused_when_readable),
        cmocka_unit_test (test_bad_files),
        cmocka_unit_test (test_user),
        cmocka_unit_test (test_user_names),
        cmocka_unit_test (test_tokens),
        cmocka_unit_test (test_secret_text),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}
