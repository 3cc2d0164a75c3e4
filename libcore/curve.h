/*  curve.h - a program's CurveZMQ settings, from its options.

    Servers (the master) take --curve-secret FILE --curve-allow DIR and
    refuse to listen on anything but loopback without them, unless told
    --insecure.  With --curve-allow alone every admitted key may do
    everything; --curve-allow-workers DIR and --curve-operators DIR give
    keys roles (zap.h): then --curve-allow's keys are clients only.  Clients
   (workers, drivers, hearth-submit, hearth-tail) take --curve-secret FILE
   --master-key FILE.  Each program adds the option rows below to its table,
   sets up a hearth_curve_t from its settings once, and lets
   hearth_curve_*_opts() fill the socket options of the sockets that face the
   network.
*/
#ifndef HEARTH_CURVE_H
#define HEARTH_CURVE_H

#include <stdbool.h>

#include <czmq.h>

#include "libcore/conf.h"
#include "libcore/cookie.h"
#include "libcore/keys.h"
#include "libcore/sock.h"
#include "libcore/zap.h"

/* clang-format off */
#define HEARTH_CURVE_SERVER_OPTIONS                                          \
    {"curve-secret", HEARTH_OPT_STR, NULL, "FILE",                           \
     "this server's secret key file (hearth-keygen): serve over CURVE"},     \
    {"curve-allow", HEARTH_OPT_STR, NULL, "DIR",                             \
     "public key files of the clients admitted (reloaded on SIGHUP)"},       \
    {"curve-allow-workers", HEARTH_OPT_STR, NULL, "DIR",                     \
     "public key files of the workers: only they may register workers, "    \
     "and --curve-allow's keys become clients only"},                        \
    {"curve-operators", HEARTH_OPT_STR, NULL, "DIR",                         \
     "public key files of operators: clients that may also kill any "        \
     "application or driver and drain workers"},                             \
    {"insecure", HEARTH_OPT_BOOL, "false", "",                               \
     "allow listening beyond loopback without keys (anyone may connect)"}
#define HEARTH_CURVE_CLIENT_OPTIONS                                          \
    {"curve-secret", HEARTH_OPT_STR, NULL, "FILE",                           \
     "this peer's secret key file (hearth-keygen); with --master-key"},      \
    {"master-key", HEARTH_OPT_STR, NULL, "FILE",                             \
     "the master's public key file: talk to it over CURVE"}
/* clang-format on */

typedef struct {
    zcert_t *cert;                           /* own key pair, or NULL */
    char server_key[HEARTH_KEY_TXT_LEN + 1]; /* client: the master's key */
    hearth_zap_t *zap;                       /* server: who is admitted */
    char cookie[HEARTH_COOKIE_LEN + 1];      /* without keys on loopback:
                                                the local cookie, or ""
                                                (cookie.h) */
    zcert_t *local_server;                   /* its key pairs: the server's */
    zcert_t *local_client;                   /* and its clients' */
    hearth_cookie_zap_t *cookie_zap;         /* server with a cookie: its
                                                ZAP handler */
} hearth_curve_t;

/* A server's keys from conf ("curve-secret", "curve-allow",
   "curve-allow-workers", "curve-operators", "insecure"), host being the
   address it binds.  Refuses keys without an allow directory, and a
   non-loopback host without keys unless insecure (and then warns, in the
   log, what is open and how to make keys).  Binds the ZAP handler when
   keys are set; with --curve-allow alone, warns that every key may do
   everything.  On loopback without keys, takes this user's local cookie
   (made if there is none) and binds its ZAP handler: only the tools of
   this user are admitted.  Returns 0 or -1 with err. */
int hearth_curve_server_setup (hearth_curve_t *self, hearth_conf_t *conf,
                               const char *host, hearth_error_t *err);

/* A client's keys from conf ("curve-secret", "master-key"): both or
   neither.  url is the master's (may be NULL): without keys and beyond
   loopback, a warning says the link is open; without keys on loopback,
   this user's local cookie is presented when it has one (the master
   there admits only its own user's tools).  Returns 0 or -1 with err
   (an unsafe cookie file among them). */
int hearth_curve_client_setup (hearth_curve_t *self, hearth_conf_t *conf,
                               const char *url, hearth_error_t *err);

/* Without keys: this user's local cookie, to present to a master at url
   when url is on loopback (made now when there is none yet, as its master
   would; none when this user cannot keep one).  For the tools that have
   no options too: a probe, a benchmark.  0, or -1 with err (an unsafe
   cookie file). */
int hearth_curve_client_local (hearth_curve_t *self, const char *url,
                               hearth_error_t *err);

/* True when CURVE is on with keys (not the local cookie's pairs, which
   encrypt only the links to a loopback master). */
bool hearth_curve_on (const hearth_curve_t *self);

/* Fill the CURVE fields of a server's or a client's socket options. */
void hearth_curve_server_opts (const hearth_curve_t *self,
                               hearth_sock_opts_t *opts);
void hearth_curve_client_opts (const hearth_curve_t *self,
                               hearth_sock_opts_t *opts);

/* Release the keys and the ZAP handler (after the sockets are gone). */
void hearth_curve_cleanup (hearth_curve_t *self);

/* True if host names this machine's loopback only: a numeric IPv4
   address in 127.0.0.0/8, "::1", "localhost", or a tcp://HOST:PORT URL
   of one of those (IPv6 in brackets).  Names are not resolved: a host
   name such as "127.example.com" is not loopback. */
bool hearth_host_is_loopback (const char *host);

#endif
