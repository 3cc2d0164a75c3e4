/*  test_runas.c - whom a worker runs a child as (worker/runas.c): the
    --user-map file (its lines, its mistakes named with their line, kept
    as it was when a reload fails), and, as root, the order of the map,
    the key's user and the refusals (no user, a user missing, root;
    --allow-root-tasks), with the user's ids and groups, each refusal
    with the code RUNAS_REFUSED; a user that cannot be looked up (the
    databases made to fail) is no refusal.  A launch without an owner
    runs as the worker when it has no keys, and is refused when it has
    (unless --allow-root-tasks).
*/
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/testutil.h"
#include "worker/runas.h"

static char s_map[64];

/* The passwd and group databases as runas.c sees them (local.mk links
   it with --wrap=getpwnam_r,--wrap=getgrouplist): the system's, but for
   names that fail as a database that cannot be read fails (an LDAP
   server that does not answer). */
int __real_getpwnam_r (const char *name, struct passwd *pw, char *buf,
                       size_t size, struct passwd **found);
int __real_getgrouplist (const char *user, gid_t group, gid_t *groups,
                         int *ngroups);

int
__wrap_getpwnam_r (const char *name, struct passwd *pw, char *buf, size_t size,
                   struct passwd **found)
{
    *found = NULL;
    if (strcmp (name, "hearth-lookup-eio") == 0)
        return EIO;
    if (strcmp (name, "hearth-lookup-enomem") == 0)
        return ENOMEM;
    if (strcmp (name, "hearth-groups-fail") == 0) /* a user, but no groups */
        return __real_getpwnam_r ("nobody", pw, buf, size, found);
    return __real_getpwnam_r (name, pw, buf, size, found);
}

int
__wrap_getgrouplist (const char *user, gid_t group, gid_t *groups, int *ngroups)
{
    if (strcmp (user, "hearth-groups-fail") == 0) {
        errno = EIO;
        return -1; /* and *ngroups not grown: no size would do */
    }
    return __real_getgrouplist (user, group, groups, ngroups);
}

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_map, sizeof s_map, "/tmp/hearth-runas-XXXXXX");
    int fd = mkstemp (s_map);
    if (fd < 0)
        return -1;
    close (fd);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    return unlink (s_map);
}

static void
s_write_map (const char *text)
{
    FILE *f = fopen (s_map, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

/* A policy on the map (map text NULL: none). */
static runas_t *
s_new (const char *map, bool allow_root, hearth_error_t *err)
{
    if (map)
        s_write_map (map);
    runas_config_t c = {.map_path = map ? s_map : NULL,
                        .allow_root = allow_root};
    return runas_new (&c, err);
}

/* An existing user other than root, for the tests as root: nobody. */
static bool
s_have_nobody (void)
{
    return getpwnam ("nobody") != NULL;
}

static const char s_key[] = "Ne&p!5Ne&p!5Ne&p!5Ne&p!5Ne&p!5Ne&p!5Ne&p";

static void
test_map_lines (void **state)
{
    (void) state;
    hearth_error_t err;
    runas_t *r = s_new ("# who      user\n"
                        "alice      nobody   # by name\n"
                        "\n"
                        "bob.key    -\n"
                        "Ne&p!5Ne&p!5Ne&p!5Ne&p!5Ne&p!5Ne&p!5Ne&p nobody\n",
                        false, &err);
    assert_non_null (r);
    assert_int_equal (runas_reload (r, &err), 3);
    runas_destroy (&r);
    assert_null (r);
    runas_destroy (&r); /* accepts NULL */

    static const struct {
        const char *text, *says;
    } bad[] = {
        {"alice\n", ":1: expected 'KEY USER'"},
        {"ok nobody\nalice nobody extra\n", ":2: expected 'KEY USER'"},
        {"a/b nobody\n", ":1: 'a/b' is neither a public key nor"},
        {"alice ../etc\n", ":1: '../etc' is not a user name"},
        {"alice -rf\n", ":1: '-rf' is not a user name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_null (s_new (bad[i].text, false, &err));
        assert_contains (err.text, s_map);
        assert_contains (err.text, bad[i].says);
    }
    runas_config_t c = {.map_path = "/nonexistent/users"};
    assert_null (runas_new (&c, &err));
    assert_contains (err.text, "cannot read the user map /nonexistent/users");
}

static void
test_reload_keeps_map (void **state)
{
    (void) state;
    hearth_error_t err;
    runas_t *r = s_new ("carol nobody\n", false, &err);
    assert_non_null (r);
    s_write_map ("carol\n");
    assert_int_equal (runas_reload (r, &err), -1);
    assert_contains (err.text, ":1: expected 'KEY USER'");
    if (geteuid () == 0 && s_have_nobody ()) {
        /* still carol -> nobody */
        runas_owner_t o = {s_key, "carol.key", NULL};
        runas_user_t u;
        assert_int_equal (runas_resolve (r, &o, &u, &err), 0);
        assert_true (u.switched);
        assert_string_equal (u.name, "nobody");
        runas_user_clear (&u);
    }
    runas_destroy (&r);
}

/* Without an owner (no keys), or as a worker that is not root: as the
   worker, nothing to change. */
static void
test_no_owner (void **state)
{
    (void) state;
    hearth_error_t err;
    runas_t *r = s_new (NULL, false, &err);
    assert_non_null (r);
    assert_int_equal (runas_switches (r), geteuid () == 0);
    runas_owner_t o = {NULL, NULL, "nobody"};
    runas_user_t u;
    assert_int_equal (runas_resolve (r, &o, &u, &err), 0);
    assert_false (u.switched);
    assert_null (u.ids.groups);
    runas_user_clear (&u);
    runas_destroy (&r);
}

static void
test_resolve_as_root (void **state)
{
    (void) state;
    if (geteuid () != 0 || !s_have_nobody ()) {
        skip ();
        return;
    }
    hearth_error_t err;
    struct passwd *pw = getpwnam ("nobody");
    uid_t nobody = pw->pw_uid;
    gid_t nogroup = pw->pw_gid;
    runas_t *r = s_new ("mapped.key nobody\n"
                        "denied -\n",
                        false, &err);
    assert_non_null (r);
    runas_user_t u;
    /* the key's own user */
    runas_owner_t o = {s_key, "alice.key", "nobody"};
    assert_int_equal (runas_resolve (r, &o, &u, &err), 0);
    assert_true (u.switched);
    assert_string_equal (u.name, "nobody");
    assert_int_equal (u.ids.uid, nobody);
    assert_int_equal (u.ids.gid, nogroup);
    assert_true (u.ids.ngroups >= 1);
    bool has_gid = false;
    for (size_t i = 0; i < u.ids.ngroups; i++)
        has_gid |= u.ids.groups[i] == nogroup;
    assert_true (has_gid);
    assert_string_equal (u.home, pw->pw_dir);
    runas_user_clear (&u);
    runas_user_clear (&u); /* idempotent */
    /* the map over a key without a user */
    o = (runas_owner_t){s_key, "mapped.key", NULL};
    assert_int_equal (runas_resolve (r, &o, &u, &err), 0);
    assert_int_equal (u.ids.uid, nobody);
    runas_user_clear (&u);
    /* '-' refuses, whatever the key names */
    o = (runas_owner_t){s_key, "denied.key", "nobody"};
    assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
    assert_contains (err.text, "the key denied.key (Ne&p!5Ne...) may run "
                               "nothing on this worker (its --user-map "
                               "says '-')");
    assert_string_equal (err.code, RUNAS_REFUSED);
    /* no user at all */
    o = (runas_owner_t){s_key, "carol.key", NULL};
    assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
    assert_contains (err.text, "the key carol.key (Ne&p!5Ne...) names no "
                               "user");
    assert_contains (err.text, "never as root unless --allow-root-tasks");
    assert_string_equal (err.code, RUNAS_REFUSED);
    /* a user missing here */
    o = (runas_owner_t){s_key, "dave.key", "hearth-no-such-user"};
    assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
    assert_contains (err.text, "maps to the user hearth-no-such-user, who "
                               "does not exist on ");
    assert_string_equal (err.code, RUNAS_REFUSED);
    /* root */
    o = (runas_owner_t){s_key, "rooty.key", "root"};
    assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
    assert_contains (err.text, "maps to root, the superuser: this worker "
                               "runs no task as root (--allow-root-tasks)");
    assert_string_equal (err.code, RUNAS_REFUSED);
    /* not a user name (the master checks only its length) */
    o = (runas_owner_t){s_key, "eve.key", "a:b"};
    assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
    assert_contains (err.text, "names 'a:b', which is not a user name");
    assert_string_equal (err.code, RUNAS_REFUSED);
    runas_destroy (&r);
}

/* --allow-root-tasks: a key naming root, or no user, runs as the worker
   (root); the others still as their users. */
static void
test_allow_root (void **state)
{
    (void) state;
    if (geteuid () != 0 || !s_have_nobody ()) {
        skip ();
        return;
    }
    hearth_error_t err;
    runas_t *r = s_new (NULL, true, &err);
    assert_non_null (r);
    runas_user_t u;
    runas_owner_t o = {s_key, "carol.key", NULL};
    assert_int_equal (runas_resolve (r, &o, &u, &err), 0);
    assert_false (u.switched);
    o = (runas_owner_t){s_key, "rooty.key", "root"};
    assert_int_equal (runas_resolve (r, &o, &u, &err), 0);
    assert_false (u.switched);
    o = (runas_owner_t){s_key, "alice.key", "nobody"};
    assert_int_equal (runas_resolve (r, &o, &u, &err), 0);
    assert_true (u.switched);
    runas_user_clear (&u);
    o = (runas_owner_t){s_key, "dave.key", "hearth-no-such-user"};
    assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
    runas_destroy (&r);
}

/* A lookup that fails (the database, not the user) is no refusal: it
   says why, with another code than RUNAS_REFUSED, so that the launch is
   an ordinary failure the master tries again. */
static void
test_lookup_fails (void **state)
{
    (void) state;
    if (geteuid () != 0 || !s_have_nobody ()) {
        skip ();
        return;
    }
    hearth_error_t err;
    runas_user_t u;
    runas_t *r = s_new (NULL, false, &err);
    assert_non_null (r);
    static const struct {
        const char *user, *says;
    } cases[] = {
        {"hearth-lookup-eio", "cannot look up the user hearth-lookup-eio "
                              "(of the key lars.key (Ne&p!5Ne...)) on "},
        {"hearth-lookup-enomem", "cannot look up the user "
                                 "hearth-lookup-enomem"},
        {"hearth-groups-fail", "cannot read the groups of the user "
                               "hearth-groups-fail on "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        runas_owner_t o = {s_key, "lars.key", cases[i].user};
        assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
        assert_contains (err.text, cases[i].says);
        assert_null (strstr (err.text, "does not exist"));
        assert_non_null (err.code);
        assert_string_not_equal (err.code, RUNAS_REFUSED);
        assert_false (u.switched);
        assert_null (u.ids.groups);
    }
    runas_owner_t o = {s_key, "lars.key", "hearth-lookup-eio"};
    assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
    assert_contains (err.text, strerror (EIO));
    runas_destroy (&r);
}

/* A worker with keys talks to a master with keys, which names every
   launch's owner: a launch that names none (an application recorded
   before the master had keys) would run as root, and is refused unless
   --allow-root-tasks.  Without keys it runs as the worker (test_no_owner). */
static void
test_ownerless_keyed (void **state)
{
    (void) state;
    if (geteuid () != 0) {
        skip ();
        return;
    }
    hearth_error_t err;
    runas_user_t u;
    runas_config_t c = {.keys = true};
    runas_t *r = runas_new (&c, &err);
    assert_non_null (r);
    runas_owner_t o = {NULL, NULL, NULL};
    assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
    assert_string_equal (err.code, RUNAS_REFUSED);
    assert_contains (err.text, "the launch names no key");
    assert_contains (err.text, "only with --allow-root-tasks");
    /* what the key file would say is not trusted without the key */
    o.user = "nobody";
    assert_int_equal (runas_resolve (r, &o, &u, &err), -1);
    runas_destroy (&r);
    c.allow_root = true;
    r = runas_new (&c, &err);
    assert_non_null (r);
    assert_int_equal (runas_resolve (r, &o, &u, &err), 0);
    assert_false (u.switched);
    runas_destroy (&r);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_map_lines),
        cmocka_unit_test (test_reload_keeps_map),
        cmocka_unit_test (test_no_owner),
        cmocka_unit_test (test_resolve_as_root),
        cmocka_unit_test (test_allow_root),
        cmocka_unit_test (test_lookup_fails),
        cmocka_unit_test (test_ownerless_keyed),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}
