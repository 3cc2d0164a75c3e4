/*  curve.c - CurveZMQ settings of servers and clients; see curve.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/curve.h"

bool
hearth_host_is_loopback (const char *host)
{
    return host
           && (strncmp (host, "127.", 4) == 0 || strcmp (host, "localhost") == 0
               || strcmp (host, "::1") == 0);
}

int
hearth_curve_server_setup (hearth_curve_t *self, hearth_conf_t *conf,
                           const char *host, hearth_error_t *err)
{
    const char *secret = hearth_conf_str (conf, "curve-secret");
    const char *allow = hearth_conf_str (conf, "curve-allow");
    memset (self, 0, sizeof *self);
    if (!secret && !allow) {
        if (hearth_host_is_loopback (host)
            || hearth_conf_bool (conf, "insecure"))
            return 0;
        return hearth_errprintf (
            err,
            "refusing to listen on %s without keys: anyone who reaches it "
            "could run code on this cluster.  Make keys with 'hearth-keygen "
            "DIR' and pass --curve-secret DIR/master.key_secret --curve-allow "
            "DIR/clients, or pass --insecure to accept that risk",
            host);
    }
    if (!secret || !allow)
        return hearth_errprintf (err, "--curve-secret and --curve-allow go "
                                      "together (keys, and who is admitted)");
    if (!(self->cert = hearth_keys_load_secret (secret, err)))
        return -1;
    if (!(self->zap = hearth_zap_new (allow, err))) {
        zcert_destroy (&self->cert);
        return -1;
    }
    return 0;
}

int
hearth_curve_client_setup (hearth_curve_t *self, hearth_conf_t *conf,
                           hearth_error_t *err)
{
    const char *secret = hearth_conf_str (conf, "curve-secret");
    const char *master = hearth_conf_str (conf, "master-key");
    memset (self, 0, sizeof *self);
    if (!secret && !master)
        return 0;
    if (!secret || !master)
        return hearth_errprintf (err, "--curve-secret and --master-key go "
                                      "together (our keys, and the "
                                      "master's)");
    if (hearth_keys_load_public (master, self->server_key,
                                 sizeof self->server_key, err)
        < 0)
        return -1;
    if (!(self->cert = hearth_keys_load_secret (secret, err)))
        return -1;
    return 0;
}

bool
hearth_curve_on (const hearth_curve_t *self)
{
    return self->cert != NULL;
}

void
hearth_curve_server_opts (const hearth_curve_t *self, hearth_sock_opts_t *opts)
{
    if (!self->cert)
        return;
    opts->curve_cert = self->cert;
    opts->curve_server_key = NULL;
    opts->zap_domain = HEARTH_ZAP_DOMAIN;
}

void
hearth_curve_client_opts (const hearth_curve_t *self, hearth_sock_opts_t *opts)
{
    if (!self->cert)
        return;
    opts->curve_cert = self->cert;
    opts->curve_server_key = self->server_key;
}

void
hearth_curve_cleanup (hearth_curve_t *self)
{
    hearth_zap_destroy (&self->zap);
    zcert_destroy (&self->cert);
}
