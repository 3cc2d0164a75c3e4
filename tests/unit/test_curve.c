/*  test_curve.c - CURVE settings from options, and ZAP admission on real
    sockets: an admitted client gets through, others do not, and a reload
    of the allow directory takes effect, on connections made before it
    too (the key as ZAP User-Id); exact loopback addresses. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/curve.h"
#include "libcore/log.h"
#include "libcore/proto.h"
#include "tests/unit/testutil.h"

static char s_dir[64], s_allow[96];

static const hearth_opt_t s_server_opts[] = {HEARTH_CURVE_SERVER_OPTIONS,
                                             {NULL}};
static const hearth_opt_t s_client_opts[] = {HEARTH_CURVE_CLIENT_OPTIONS,
                                             {NULL}};

/* DIR/NAME.key(_secret); admitted (a copy in DIR/clients) if allow. */
static void
s_make (const char *name, bool allow)
{
    char base[160], pub[200];
    hearth_error_t err;
    snprintf (base, sizeof base, "%s/%s.key", s_dir, name);
    zcert_t *cert = zcert_new ();
    assert_int_equal (hearth_keys_save (cert, base, name, &err), 0);
    if (allow) {
        snprintf (pub, sizeof pub, "%s/%s.key", s_allow, name);
        assert_int_equal (zcert_save_public (cert, pub), 0);
    }
    zcert_destroy (&cert);
}

static int
s_setup (void **state)
{
    (void) state;
    hearth_test_clear_env ();
    hearth_log_open ("test_curve", "error", NULL, NULL);
    hearth_zsys_init ();
    snprintf (s_dir, sizeof s_dir, "/tmp/hearth-curve-XXXXXX");
    if (!mkdtemp (s_dir))
        return -1;
    snprintf (s_allow, sizeof s_allow, "%s/clients", s_dir);
    mkdir (s_allow, 0755);
    char cookie[128]; /* the local cookie: the test's own */
    snprintf (cookie, sizeof cookie, "%s/cookie.d/cookie", s_dir);
    setenv ("HEARTH_COOKIE", cookie, 1);
    s_make ("master", false);
    s_make ("good", true);
    s_make ("bad", false);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    char cmd[128];
    snprintf (cmd, sizeof cmd, "rm -rf %s", s_dir);
    return system (cmd);
}

static hearth_conf_t *
s_conf (const hearth_opt_t *opts, const char *a, const char *va, const char *b,
        const char *vb)
{
    hearth_conf_t *conf = hearth_conf_new ("test", opts);
    if (a)
        hearth_conf_set (conf, a, va, HEARTH_SRC_FLAG, NULL);
    if (b)
        hearth_conf_set (conf, b, vb, HEARTH_SRC_FLAG, NULL);
    return conf;
}

static void
test_loopback (void **state)
{
    (void) state;
    assert_true (hearth_host_is_loopback ("127.0.0.1"));
    assert_true (hearth_host_is_loopback ("127.1.2.3"));
    assert_true (hearth_host_is_loopback ("localhost"));
    assert_true (hearth_host_is_loopback ("::1"));
    assert_false (hearth_host_is_loopback ("0.0.0.0"));
    assert_false (hearth_host_is_loopback ("10.0.0.1"));
    assert_false (hearth_host_is_loopback ("*"));
    assert_false (hearth_host_is_loopback (NULL));
    assert_false (hearth_host_is_loopback (""));
    /* Names are not resolved: only the exact forms count. */
    assert_false (hearth_host_is_loopback ("127.example.com"));
    assert_false (hearth_host_is_loopback ("127.0.0.1.example.com"));
    assert_false (hearth_host_is_loopback ("127.1"));
    assert_false (hearth_host_is_loopback ("128.0.0.1"));
    assert_false (hearth_host_is_loopback ("localhost.example.com"));
    assert_false (hearth_host_is_loopback ("::"));
    assert_false (hearth_host_is_loopback ("::ffff:10.0.0.1"));
    /* URLs of the master, tcp://HOST:PORT. */
    assert_true (hearth_host_is_loopback ("tcp://127.0.0.1:7077"));
    assert_true (hearth_host_is_loopback ("tcp://127.255.0.9:1"));
    assert_true (hearth_host_is_loopback ("tcp://localhost:7077"));
    assert_true (hearth_host_is_loopback ("tcp://[::1]:7077"));
    assert_false (hearth_host_is_loopback ("tcp://127.example.com:7077"));
    assert_false (hearth_host_is_loopback ("tcp://10.0.0.1:7077"));
    assert_false (hearth_host_is_loopback ("tcp://0.0.0.0:7077"));
    assert_false (hearth_host_is_loopback ("tcp://::1:7077"));
    assert_false (hearth_host_is_loopback ("tcp://127.0.0.1"));
    assert_false (hearth_host_is_loopback ("tcp://127.0.0.1:"));
    assert_false (hearth_host_is_loopback ("tcp://127.0.0.1:77x"));
    assert_false (hearth_host_is_loopback ("ipc://127.0.0.1:7077"));
}

static void
test_server_settings (void **state)
{
    (void) state;
    hearth_curve_t c;
    hearth_error_t err;
    char secret[128];
    snprintf (secret, sizeof secret, "%s/master.key_secret", s_dir);
    hearth_conf_t *conf = s_conf (s_server_opts, NULL, NULL, NULL, NULL);
    assert_int_equal (hearth_curve_server_setup (&c, conf, "127.0.0.1", &err),
                      0);
    assert_false (hearth_curve_on (&c));
    /* on loopback without keys: the local cookie's key pairs over CURVE,
       which are not keys (hearth_curve_on) */
    assert_int_equal (strlen (c.cookie), HEARTH_COOKIE_LEN);
    assert_non_null (c.cookie_zap);
    hearth_sock_opts_t opts = {.type = ZMQ_ROUTER};
    hearth_curve_server_opts (&c, &opts);
    assert_ptr_equal (opts.curve_cert, c.local_server);
    assert_null (opts.curve_server_key);
    assert_string_equal (opts.zap_domain, HEARTH_ZAP_DOMAIN);
    hearth_curve_cleanup (&c);
    assert_null (c.cookie_zap);
    assert_int_equal (hearth_curve_server_setup (&c, conf, "0.0.0.0", &err),
                      -1);
    assert_contains (err.text, "refusing to listen on 0.0.0.0 without keys");
    hearth_conf_set (conf, "insecure", "true", HEARTH_SRC_FLAG, NULL);
    assert_int_equal (hearth_curve_server_setup (&c, conf, "0.0.0.0", &err), 0);
    assert_string_equal (c.cookie, ""); /* beyond loopback: no cookie */
    assert_null (c.cookie_zap);
    hearth_conf_destroy (&conf);
    conf = s_conf (s_server_opts, "curve-secret", secret, NULL, NULL);
    assert_int_equal (hearth_curve_server_setup (&c, conf, "0.0.0.0", &err),
                      -1);
    assert_contains (err.text, "go together");
    hearth_conf_destroy (&conf);
}

static void
test_client_settings (void **state)
{
    (void) state;
    hearth_curve_t c;
    hearth_error_t err;
    char secret[128], master[128];
    snprintf (secret, sizeof secret, "%s/good.key_secret", s_dir);
    snprintf (master, sizeof master, "%s/master.key", s_dir);
    hearth_conf_t *conf =
        s_conf (s_client_opts, "master-key", master, NULL, NULL);
    assert_int_equal (hearth_curve_client_setup (&c, conf, NULL, &err), -1);
    assert_contains (err.text, "go together");
    hearth_conf_destroy (&conf);
    conf = s_conf (s_client_opts, "master-key", master, "curve-secret", secret);
    assert_int_equal (hearth_curve_client_setup (&c, conf, NULL, &err), 0);
    assert_true (hearth_curve_on (&c));
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (&c, &opts);
    assert_ptr_equal (opts.curve_cert, c.cert);
    assert_string_equal (opts.curve_server_key, c.server_key);
    hearth_curve_cleanup (&c);
    assert_null (c.cert);
    hearth_conf_destroy (&conf);
}

/* Does a client with key NAME get a message through to the server? */
static bool
s_gets_through (hearth_curve_t *server, zsock_t *router, int port,
                const char *name)
{
    char secret[128], master[128], endpoint[64];
    hearth_error_t err;
    snprintf (secret, sizeof secret, "%s/%s.key_secret", s_dir, name);
    snprintf (master, sizeof master, "%s/master.key", s_dir);
    hearth_conf_t *conf =
        s_conf (s_client_opts, "master-key", master, "curve-secret", secret);
    hearth_curve_t client;
    assert_int_equal (hearth_curve_client_setup (&client, conf, NULL, &err), 0);
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (&client, &opts);
    zsock_t *dealer = hearth_sock_new (&opts, &err);
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    assert_int_equal (hearth_sock_connect (dealer, endpoint, &err), 0);
    zstr_send (dealer, "hello");
    zpoller_t *poller =
        zpoller_new (router, hearth_zap_sock (server->zap), NULL);
    bool through = false;
    int64_t deadline = zclock_mono () + 1000;
    while (!through && zclock_mono () < deadline) {
        void *which = zpoller_wait (poller, 50);
        if (which == hearth_zap_sock (server->zap))
            hearth_zap_handle (server->zap);
        else if (which == router) {
            zmsg_t *msg = zmsg_recv (router);
            through = msg != NULL;
            zmsg_destroy (&msg);
        }
    }
    zpoller_destroy (&poller);
    zsock_destroy (&dealer);
    hearth_curve_cleanup (&client);
    hearth_conf_destroy (&conf);
    return through;
}

static void
test_admission_and_reload (void **state)
{
    (void) state;
    hearth_curve_t server;
    hearth_error_t err;
    char secret[128], good[128];
    snprintf (secret, sizeof secret, "%s/master.key_secret", s_dir);
    hearth_conf_t *conf =
        s_conf (s_server_opts, "curve-secret", secret, "curve-allow", s_allow);
    assert_int_equal (
        hearth_curve_server_setup (&server, conf, "127.0.0.1", &err), 0);
    assert_int_equal (hearth_zap_size (server.zap), 1);
    hearth_sock_opts_t opts = {.type = ZMQ_ROUTER};
    hearth_curve_server_opts (&server, &opts);
    zsock_t *router = hearth_sock_new (&opts, &err);
    int port = hearth_sock_bind (router, "tcp://127.0.0.1:0", &err);
    assert_true (port > 0);
    assert_true (s_gets_through (&server, router, port, "good"));
    assert_false (s_gets_through (&server, router, port, "bad"));
    assert_true (hearth_zap_refusals (server.zap) >= 1);
    /* Remove the good key, reload: refused from then on. */
    snprintf (good, sizeof good, "%s/good.key", s_allow);
    assert_int_equal (unlink (good), 0);
    assert_int_equal (hearth_zap_reload (server.zap, &err), 0);
    assert_false (s_gets_through (&server, router, port, "good"));
    zsock_destroy (&router);
    hearth_curve_cleanup (&server);
    hearth_conf_destroy (&conf);
}

/* A server (ROUTER) and a client with key NAME connected to it, serving
   ZAP from the test's thread. */
typedef struct {
    hearth_curve_t server; /* keys and ZAP handler */
    hearth_conf_t *sconf;  /* the server's settings */
    zsock_t *router;       /* the server's socket */
    hearth_curve_t client; /* the client's keys */
    hearth_conf_t *cconf;  /* the client's settings */
    zsock_t *dealer;       /* the client's socket */
} s_pair_t;

static void
s_pair_open (s_pair_t *p, const char *name, const char *domain)
{
    char secret[128], master[128], endpoint[64];
    hearth_error_t err;
    snprintf (secret, sizeof secret, "%s/master.key_secret", s_dir);
    p->sconf =
        s_conf (s_server_opts, "curve-secret", secret, "curve-allow", s_allow);
    /* The previous server's ZAP endpoint is released by libzmq's reaper
       thread, a moment after its socket is destroyed. */
    int rc = -1;
    for (int i = 0; rc < 0 && i < 100; i++) {
        rc =
            hearth_curve_server_setup (&p->server, p->sconf, "127.0.0.1", &err);
        if (rc < 0)
            zclock_sleep (10);
    }
    assert_int_equal (rc, 0);
    hearth_sock_opts_t sopts = {.type = ZMQ_ROUTER};
    hearth_curve_server_opts (&p->server, &sopts);
    sopts.zap_domain = domain;
    p->router = hearth_sock_new (&sopts, &err);
    int port = hearth_sock_bind (p->router, "tcp://127.0.0.1:0", &err);
    assert_true (port > 0);
    snprintf (secret, sizeof secret, "%s/%s.key_secret", s_dir, name);
    snprintf (master, sizeof master, "%s/master.key", s_dir);
    p->cconf =
        s_conf (s_client_opts, "master-key", master, "curve-secret", secret);
    assert_int_equal (
        hearth_curve_client_setup (&p->client, p->cconf, NULL, &err), 0);
    hearth_sock_opts_t copts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (&p->client, &copts);
    p->dealer = hearth_sock_new (&copts, &err);
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    assert_int_equal (hearth_sock_connect (p->dealer, endpoint, &err), 0);
}

static void
s_pair_close (s_pair_t *p)
{
    zsock_destroy (&p->dealer);
    zsock_destroy (&p->router);
    hearth_curve_cleanup (&p->client);
    hearth_curve_cleanup (&p->server);
    hearth_conf_destroy (&p->cconf);
    hearth_conf_destroy (&p->sconf);
}

/* Send MASTER_STATE from the client; true if the server receives it
   within a second, with who sent it in *sender. */
static bool
s_pair_message (s_pair_t *p, hearth_sender_t *sender)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_MASTER_STATE);
    assert_int_equal (hearth_msg_send (&msg, p->dealer, NULL, NULL), 0);
    zpoller_t *poller =
        zpoller_new (p->router, hearth_zap_sock (p->server.zap), NULL);
    bool through = false;
    int64_t deadline = zclock_mono () + 1000;
    while (!through && zclock_mono () < deadline) {
        void *which = zpoller_wait (poller, 50);
        if (which == hearth_zap_sock (p->server.zap))
            hearth_zap_handle (p->server.zap);
        else if (which == p->router) {
            zframe_t *rid = NULL;
            msg = hearth_msg_recv_from (p->router, &rid, sender, NULL);
            through = msg != NULL;
            hearth_msg_destroy (&msg);
            zframe_destroy (&rid);
        }
    }
    zpoller_destroy (&poller);
    return through;
}

/* An admitted client's messages carry its key as ZAP User-Id and its
   address; once its key is removed (reload), hearth_zap_admits() refuses
   the messages of the connection it already has. */
static void
test_user_id_and_removal (void **state)
{
    (void) state;
    char pub[128], key[HEARTH_KEY_TXT_LEN + 1];
    hearth_error_t err;
    s_make ("kept", true);
    snprintf (pub, sizeof pub, "%s/kept.key", s_allow);
    assert_int_equal (hearth_keys_load_public (pub, key, sizeof key, &err), 0);
    s_pair_t p;
    s_pair_open (&p, "kept", HEARTH_ZAP_DOMAIN);
    hearth_sender_t sender;
    assert_true (s_pair_message (&p, &sender));
    assert_string_equal (sender.user_id, key);
    assert_string_equal (sender.address, "127.0.0.1");
    assert_true (hearth_zap_admits (p.server.zap, sender.user_id, ""));
    assert_int_equal (hearth_zap_removed (p.server.zap), 0);
    size_t refusals = hearth_zap_refusals (p.server.zap);
    assert_int_equal (unlink (pub), 0);
    assert_true (hearth_zap_reload (p.server.zap, &err) >= 0);
    assert_int_equal (hearth_zap_removed (p.server.zap), 1);
    /* The connection stays up, but its messages are no longer admitted. */
    assert_true (s_pair_message (&p, &sender));
    assert_string_equal (sender.user_id, key);
    assert_false (
        hearth_zap_admits (p.server.zap, sender.user_id, sender.address));
    assert_int_equal (hearth_zap_refusals (p.server.zap), refusals + 1);
    assert_false (hearth_zap_admits (p.server.zap, "", ""));
    s_pair_close (&p);
}

/* The handler answers for Hearth's ZAP domain only. */
static void
test_foreign_domain (void **state)
{
    (void) state;
    s_make ("visitor", true);
    s_pair_t p;
    hearth_sender_t sender;
    s_pair_open (&p, "visitor", "another");
    assert_false (s_pair_message (&p, &sender));
    assert_true (hearth_zap_refusals (p.server.zap) >= 1);
    s_pair_close (&p);
    s_pair_open (&p, "visitor", HEARTH_ZAP_DOMAIN);
    assert_true (s_pair_message (&p, &sender));
    s_pair_close (&p);
}

/* The refusal log counts every refusal, whether it logs it or not. */
static void
test_refusals (void **state)
{
    (void) state;
    hearth_refusals_t *r = hearth_refusals_new ();
    assert_non_null (r);
    for (int i = 0; i < 3; i++)
        hearth_refusals_log (r, "tcp://10.0.0.5:4000", NULL, "test");
    hearth_refusals_log (r, "10.0.0.6", "key", "test");
    assert_int_equal (hearth_refusals_count (r), 4);
    hearth_refusals_destroy (&r);
    assert_null (r);
    hearth_refusals_destroy (&r);
}

/* The public key of a fresh pair saved as DIR/NAME.key; into key. */
static void
s_public_in (const char *dir, const char *name, char *key)
{
    char path[200];
    mkdir (dir, 0755);
    snprintf (path, sizeof path, "%s/%s.key", dir, name);
    zcert_t *cert = zcert_new ();
    assert_int_equal (zcert_save_public (cert, path), 0);
    snprintf (key, HEARTH_KEY_TXT_LEN + 1, "%s", zcert_public_txt (cert));
    zcert_destroy (&cert);
}

/* Roles: each directory gives its keys its roles, a key in two has both,
   and a reload that takes a role away counts as a removal. */
static void
test_roles (void **state)
{
    (void) state;
    char users[96], workers[96], ops[96], path[256];
    char alice[HEARTH_KEY_TXT_LEN + 1], w1[HEARTH_KEY_TXT_LEN + 1];
    char both[HEARTH_KEY_TXT_LEN + 1], boss[HEARTH_KEY_TXT_LEN + 1];
    hearth_error_t err;
    snprintf (users, sizeof users, "%s/r-users", s_dir);
    snprintf (workers, sizeof workers, "%s/r-workers", s_dir);
    snprintf (ops, sizeof ops, "%s/r-ops", s_dir);
    s_public_in (users, "alice", alice);
    s_public_in (workers, "w1", w1);
    s_public_in (ops, "boss", boss);
    s_public_in (users, "both", both);
    snprintf (path, sizeof path, "%s/both.key", users);
    char copy[600];
    snprintf (copy, sizeof copy, "cp %s %s/both.key", path, workers);
    assert_int_equal (system (copy), 0);
    hearth_zap_dir_t dirs[] = {
        {users, HEARTH_ROLE_CLIENT, "client"},
        {workers, HEARTH_ROLE_WORKER, "worker"},
        {ops, HEARTH_ROLE_CLIENT | HEARTH_ROLE_OPERATOR, "operator"}};
    hearth_zap_t *zap = hearth_zap_new_dirs (dirs, 3, &err);
    assert_non_null (zap);
    assert_true (hearth_zap_has_roles (zap));
    assert_int_equal (hearth_zap_size (zap), 4);
    assert_int_equal (hearth_zap_roles (zap, alice), HEARTH_ROLE_CLIENT);
    assert_int_equal (hearth_zap_roles (zap, w1), HEARTH_ROLE_WORKER);
    assert_int_equal (hearth_zap_roles (zap, boss),
                      HEARTH_ROLE_CLIENT | HEARTH_ROLE_OPERATOR);
    assert_int_equal (hearth_zap_roles (zap, both),
                      HEARTH_ROLE_CLIENT | HEARTH_ROLE_WORKER);
    assert_int_equal (hearth_zap_roles (zap, "nobody"), 0);
    assert_int_equal (hearth_zap_roles (zap, NULL), 0);
    assert_string_equal (hearth_zap_name (zap, w1), "w1.key");
    assert_null (hearth_zap_name (zap, "nobody"));
    /* "both" loses its worker role; nothing else changes. */
    snprintf (path, sizeof path, "%s/both.key", workers);
    assert_int_equal (unlink (path), 0);
    assert_int_equal (hearth_zap_reload (zap, &err), 4);
    assert_int_equal (hearth_zap_removed (zap), 1);
    assert_int_equal (hearth_zap_roles (zap, both), HEARTH_ROLE_CLIENT);
    assert_true (hearth_zap_allowed (zap, both));
    /* A directory that cannot be read: refused, the keys stay. */
    snprintf (copy, sizeof copy, "rm -rf %s", ops);
    assert_int_equal (system (copy), 0);
    assert_int_equal (hearth_zap_reload (zap, &err), -1);
    assert_non_null (strstr (err.text, "cannot read the allow directory"));
    assert_int_equal (hearth_zap_roles (zap, boss),
                      HEARTH_ROLE_CLIENT | HEARTH_ROLE_OPERATOR);
    hearth_zap_destroy (&zap);
    assert_null (zap);
    /* One directory: every key has every role, and no roles are told. */
    zap = hearth_zap_new (users, &err);
    assert_non_null (zap);
    assert_false (hearth_zap_has_roles (zap));
    assert_int_equal (hearth_zap_roles (zap, alice), HEARTH_ROLE_ALL);
    hearth_zap_destroy (&zap);
    assert_null (hearth_zap_new_dirs (dirs, 0, &err));
    /* From options: a role directory turns roles on; one needs keys. */
    char secret[128];
    hearth_curve_t c;
    snprintf (secret, sizeof secret, "%s/master.key_secret", s_dir);
    hearth_conf_t *conf =
        s_conf (s_server_opts, "curve-allow-workers", workers, NULL, NULL);
    assert_int_equal (hearth_curve_server_setup (&c, conf, "127.0.0.1", &err),
                      -1);
    assert_contains (err.text, "go together");
    hearth_conf_set (conf, "curve-secret", secret, HEARTH_SRC_FLAG, NULL);
    hearth_conf_set (conf, "curve-allow", users, HEARTH_SRC_FLAG, NULL);
    assert_int_equal (hearth_curve_server_setup (&c, conf, "0.0.0.0", &err), 0);
    assert_true (hearth_zap_has_roles (c.zap));
    assert_int_equal (hearth_zap_roles (c.zap, alice), HEARTH_ROLE_CLIENT);
    assert_int_equal (hearth_zap_roles (c.zap, w1), HEARTH_ROLE_WORKER);
    hearth_curve_cleanup (&c);
    hearth_conf_destroy (&conf);
}

/* A key the program admits (a master's own, for its standbys) keeps its
   role across reloads, adds it to a directory's key, and is checked. */
static void
test_admit_key (void **state)
{
    (void) state;
    char users[96], alice[HEARTH_KEY_TXT_LEN + 1];
    char mine[HEARTH_KEY_TXT_LEN + 1];
    hearth_error_t err;
    snprintf (users, sizeof users, "%s/k-users", s_dir);
    s_public_in (users, "alice", alice);
    s_public_in (users, "mine", mine);
    char path[256];
    snprintf (path, sizeof path, "%s/mine.key", users);
    assert_int_equal (unlink (path), 0);
    hearth_zap_dir_t dir = {users, HEARTH_ROLE_CLIENT, "client"};
    hearth_zap_t *zap = hearth_zap_new_dirs (&dir, 1, &err);
    assert_non_null (zap);
    assert_int_equal (hearth_zap_roles (zap, mine), 0);
    assert_int_equal (
        hearth_zap_admit_key (zap, mine, "masters", HEARTH_ROLE_MASTER, &err),
        0);
    assert_int_equal (hearth_zap_roles (zap, mine), HEARTH_ROLE_MASTER);
    assert_string_equal (hearth_zap_name (zap, mine), "masters");
    assert_int_equal (
        hearth_zap_admit_key (zap, alice, "also", HEARTH_ROLE_MASTER, &err), 0);
    assert_int_equal (hearth_zap_roles (zap, alice),
                      HEARTH_ROLE_CLIENT | HEARTH_ROLE_MASTER);
    assert_int_equal (hearth_zap_reload (zap, &err), 2);
    assert_int_equal (hearth_zap_removed (zap), 0);
    assert_int_equal (hearth_zap_roles (zap, mine), HEARTH_ROLE_MASTER);
    assert_int_equal (
        hearth_zap_admit_key (zap, "short", "bad", HEARTH_ROLE_MASTER, &err),
        -1);
    assert_contains (err.text, "not a public key");
    hearth_zap_destroy (&zap);
}

/* The keys a program admits (a master's, one per launch of each
   cluster-mode driver) are as many as it makes, survive reloads, and are
   refused, connections made before included, once forgotten. */
static void
test_program_keys (void **state)
{
    (void) state;
    char pub[128], key[HEARTH_KEY_TXT_LEN + 1];
    char alice[HEARTH_KEY_TXT_LEN + 1], many[64][HEARTH_KEY_TXT_LEN + 1];
    hearth_error_t err;
    s_make ("launch", false); /* in no allow directory */
    s_make ("dirkey", true);
    snprintf (pub, sizeof pub, "%s/launch.key", s_dir);
    assert_int_equal (hearth_keys_load_public (pub, key, sizeof key, &err), 0);
    snprintf (pub, sizeof pub, "%s/dirkey.key", s_allow);
    assert_int_equal (hearth_keys_load_public (pub, alice, sizeof alice, &err),
                      0);
    s_pair_t p;
    s_pair_open (&p, "launch", HEARTH_ZAP_DOMAIN);
    hearth_zap_t *zap = p.server.zap;
    size_t dir_keys = hearth_zap_size (zap);
    /* far more than a handful */
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++) {
        char secret[HEARTH_KEY_TXT_LEN + 1], name[32];
        assert_int_equal (zmq_curve_keypair (many[i], secret), 0);
        snprintf (name, sizeof name, "driver-%zu", i);
        assert_int_equal (
            hearth_zap_admit_key (zap, many[i], name, HEARTH_ROLE_DRIVER, &err),
            0);
    }
    assert_int_equal (hearth_zap_size (zap), dir_keys + 64);
    assert_int_equal (
        hearth_zap_admit_key (zap, key, "driver-a", HEARTH_ROLE_DRIVER, &err),
        0);
    hearth_sender_t sender;
    assert_true (s_pair_message (&p, &sender));
    assert_string_equal (sender.user_id, key);
    assert_true (hearth_zap_admits (zap, key, ""));
    assert_int_equal (hearth_zap_roles (zap, key), HEARTH_ROLE_DRIVER);
    /* admitted again: its new name and roles */
    assert_int_equal (
        hearth_zap_admit_key (zap, key, "driver-b", HEARTH_ROLE_DRIVER, &err),
        0);
    assert_string_equal (hearth_zap_name (zap, key), "driver-b");
    assert_int_equal (hearth_zap_reload (zap, &err), (int) dir_keys + 65);
    assert_int_equal (hearth_zap_removed (zap), 0);
    assert_true (hearth_zap_admits (zap, key, ""));
    /* forgotten: its open connection's messages are refused, then */
    hearth_zap_forget_key (zap, key);
    assert_true (s_pair_message (&p, &sender));
    assert_false (hearth_zap_admits (zap, sender.user_id, sender.address));
    assert_int_equal (hearth_zap_roles (zap, key), 0);
    assert_null (hearth_zap_name (zap, key));
    for (size_t i = 0; i < 32; i++)
        hearth_zap_forget_key (zap, many[i]);
    assert_false (hearth_zap_allowed (zap, many[0]));
    assert_true (hearth_zap_allowed (zap, many[32]));
    assert_int_equal (hearth_zap_reload (zap, &err), (int) dir_keys + 32);
    assert_false (hearth_zap_allowed (zap, key));
    hearth_zap_forget_key (zap, key); /* twice, or never admitted: nothing */
    hearth_zap_forget_key (zap, NULL);
    /* a directory's key keeps that directory's role once forgotten */
    assert_int_equal (
        hearth_zap_admit_key (zap, alice, "driver-c", HEARTH_ROLE_DRIVER, &err),
        0);
    assert_int_equal (hearth_zap_roles (zap, alice),
                      HEARTH_ROLE_ALL | HEARTH_ROLE_DRIVER);
    hearth_zap_forget_key (zap, alice);
    assert_int_equal (hearth_zap_roles (zap, alice), HEARTH_ROLE_ALL);
    assert_string_equal (hearth_zap_name (zap, alice), "dirkey.key");
    s_pair_close (&p);
    /* and a new connection with the forgotten key is refused */
    s_pair_open (&p, "launch", HEARTH_ZAP_DOMAIN);
    assert_false (s_pair_message (&p, &sender));
    s_pair_close (&p);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_loopback),
        cmocka_unit_test (test_server_settings),
        cmocka_unit_test (test_client_settings),
        cmocka_unit_test (test_admission_and_reload),
        cmocka_unit_test (test_user_id_and_removal),
        cmocka_unit_test (test_foreign_domain),
        cmocka_unit_test (test_refusals),
        cmocka_unit_test (test_roles),
        cmocka_unit_test (test_admit_key),
        cmocka_unit_test (test_program_keys),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}
