/*  hearth-keygen - makes a cluster's CurveZMQ keys.

    hearth-keygen DIR                 the master's key pair and a first
                                      client key pair named "client"
    hearth-keygen --client NAME DIR   one more client key pair
    hearth-keygen --worker NAME DIR   a worker's key pair (role: worker)
    hearth-keygen --operator NAME DIR an operator's key pair
    hearth-keygen --public FILE       print a key file's public key

    --user USER with --client or --operator (or with DIR alone, for its
    first client key) writes `user = "USER"` into the key's metadata: the
    user that the key's tasks run as on workers running as root
    (docs/security.md, "Tasks run as their submitter").

    DIR/master.key           the master's public key: every peer's --master-key
    DIR/master.key_secret    the master's secret key: its --curve-secret
    DIR/clients/NAME.key     admitted clients: the master's --curve-allow
    DIR/workers/NAME.key     admitted workers: --curve-allow-workers
    DIR/operators/NAME.key   admitted operators: --curve-operators
    DIR/NAME.key_secret      a peer's secret key: that node's --curve-secret

    Secret files are written mode 0600 and never overwritten.  See
    docs/security.md.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/conf.h"
#include "libcore/ids.h"
#include "libcore/keys.h"

static const hearth_opt_t s_opts[] = {
    {"client", HEARTH_OPT_STR, NULL, "NAME",
     "add a client key pair NAME to DIR (instead of making DIR)"},
    {"worker", HEARTH_OPT_STR, NULL, "NAME",
     "add a worker key pair NAME, admitted in DIR/workers "
     "(--curve-allow-workers)"},
    {"operator", HEARTH_OPT_STR, NULL, "NAME",
     "add an operator key pair NAME, admitted in DIR/operators "
     "(--curve-operators)"},
    {"public", HEARTH_OPT_STR, NULL, "FILE",
     "print the public key held in FILE and exit"},
    {"user", HEARTH_OPT_STR, NULL, "USER",
     "with --client or --operator (or DIR alone: its first client key): "
     "the user the key's tasks run as on workers running as root"},
    {NULL},
};

/* Say text; returns code: 2 for a usage mistake, 1 for a failure (as
   every Hearth program). */
static int
s_fail (int code, const char *text)
{
    fprintf (stderr, "hearth-keygen: %s\n", text);
    return code;
}

static int
s_mkdir (const char *path, mode_t mode, hearth_error_t *err)
{
    if (mkdir (path, mode) < 0 && errno != EEXIST)
        return hearth_errprintf (err, "cannot create %s: %s", path,
                                 strerror (errno));
    return 0;
}

/* A new key pair saved as DIR/NAME.key(_secret), its public key also in
   DIR/SUB/NAME.key unless sub is NULL (the master's), naming user in its
   metadata unless user is NULL. */
static int
s_make_pair (const char *dir, const char *name, const char *sub,
             const char *user, hearth_error_t *err)
{
    char base[4200], allowed[4300];
    bool client = sub != NULL;
    snprintf (base, sizeof base, "%s/%s.key", dir, name);
    snprintf (allowed, sizeof allowed, "%s/%s/%s.key", dir, sub ? sub : "",
              name);
    if (client && access (allowed, F_OK) == 0)
        return hearth_errprintf (err, "%s exists already: not overwritten",
                                 allowed);
    zcert_t *cert = zcert_new ();
    if (!cert)
        return hearth_errprintf (err, "cannot make a key pair");
    if (user)
        zcert_set_meta (cert, "user", "%s", user);
    int rc = hearth_keys_save (cert, base, name, err);
    if (rc == 0 && client && zcert_save_public (cert, allowed) < 0)
        rc = hearth_errprintf (err, "cannot write %s: %s", allowed,
                               strerror (errno));
    if (rc == 0)
        printf ("%s_secret (secret) and %s%s%s%s%s\n", base, base,
                client ? ", admitted as " : "", client ? allowed : "",
                user ? ", tasks run as user " : "", user ? user : "");
    zcert_destroy (&cert);
    return rc;
}

/* name: the peer to add (NULL: make DIR), admitted in DIR/sub, its
   tasks run as user (or NULL). */
static int
s_run (const char *dir, const char *name, const char *sub, const char *user,
       hearth_error_t *err)
{
    char allow[4200];
    snprintf (allow, sizeof allow, "%s/%s", dir, sub);
    if (name && !hearth_name_safe (name))
        return hearth_errprintf (err,
                                 "'%s' is not a usable name (letters, "
                                 "digits, '.', '_', '-')",
                                 name);
    if (user && !hearth_user_name_valid (user))
        return hearth_errprintf (err,
                                 "--user '%s' is not a user name (letters, "
                                 "digits, '.', '_', '-', at most %d)",
                                 user, HEARTH_USER_MAX);
    if (user && strcmp (sub, "workers") == 0)
        return hearth_errprintf (err, "--user names whom a client's or an "
                                      "operator's tasks run as: a worker's "
                                      "key runs none");
    if (s_mkdir (dir, 0700, err) < 0 || s_mkdir (allow, 0755, err) < 0)
        return -1;
    if (name)
        return s_make_pair (dir, name, sub, user, err);
    if (s_make_pair (dir, "master", NULL, NULL, err) < 0)
        return -1;
    return s_make_pair (dir, "client", sub, user, err);
}

/* The peer to add, and its allow directory; -1 when several are asked. */
static int
s_peer (hearth_conf_t *conf, const char **name, const char **sub)
{
    static const char *const kinds[][2] = {{"client", "clients"},
                                           {"worker", "workers"},
                                           {"operator", "operators"}};
    *name = NULL;
    *sub = "clients";
    for (size_t i = 0; i < 3; i++) {
        const char *v = hearth_conf_str (conf, kinds[i][0]);
        if (v && *name)
            return -1;
        if (v) {
            *name = v;
            *sub = kinds[i][1];
        }
    }
    return 0;
}

int
main (int argc, char **argv)
{
    hearth_error_t err;
    const char *name, *sub;
    hearth_conf_t *conf = hearth_conf_new ("hearth-keygen", s_opts);
    int first = conf ? hearth_conf_parse (conf, argc, argv, &err) : -1;
    int rc = 0;
    if (!conf || first < 0)
        rc = s_fail (conf ? 2 : 1, conf ? err.text : "out of memory");
    else if (hearth_conf_wants_help (conf))
        hearth_conf_usage (
            conf, stdout,
            "[--client|--worker|--operator NAME] [--user USER] DIR | "
            "--public FILE",
            "Makes the CurveZMQ keys of a Hearth cluster (see "
            "docs/security.md).");
    else if (hearth_conf_wants_version (conf))
        printf ("hearth-keygen %s\n", PACKAGE_VERSION);
    else if (hearth_conf_str (conf, "public")) {
        char key[HEARTH_KEY_TXT_LEN + 1];
        if (hearth_keys_load_public (hearth_conf_str (conf, "public"), key,
                                     sizeof key, &err)
            < 0)
            rc = s_fail (1, err.text);
        else
            printf ("%s\n", key);
    }
    else if (argc - first != 1)
        rc = s_fail (2, "expected one directory (see --help)");
    else if (s_peer (conf, &name, &sub) < 0)
        rc = s_fail (2, "one of --client, --worker and --operator at a time");
    else if (s_run (argv[first], name, sub, hearth_conf_str (conf, "user"),
                    &err)
             < 0)
        rc = s_fail (1, err.text);
    hearth_conf_destroy (&conf);
    return rc;
}
