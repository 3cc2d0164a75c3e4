/*  keys.c - reading and writing CurveZMQ key files; see keys.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/keys.h"

/* The quoted value of `name = "value"` on line into out (41 bytes).
   Returns true if line holds that key. */
static bool
s_key_line (const char *line, const char *name, char *out)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strlen (name);
    if (strncmp (line, name, n) != 0)
        return false;
    const char *q = strchr (line + n, '"');
    const char *end = q ? strchr (q + 1, '"') : NULL;
    if (!end || end - q - 1 != HEARTH_KEY_TXT_LEN)
        return false;
    memcpy (out, q + 1, HEARTH_KEY_TXT_LEN);
    out[HEARTH_KEY_TXT_LEN] = '\0';
    return true;
}

/* A key file without a secret key, where one was wanted: a public key,
   most likely, whose secret half hearth-keygen wrote beside it as
   PATH_secret.  Returns -1. */
static int
s_no_secret (const char *path, hearth_error_t *err)
{
    char secret[4200];
    snprintf (secret, sizeof secret, "%s_secret", path);
    if (access (secret, F_OK) == 0)
        return hearth_errprintf (err,
                                 "%s is a public key (it holds no secret "
                                 "key): give its secret half, %s",
                                 path, secret);
    return hearth_errprintf (err,
                             "%s is a public key (it holds no secret key): "
                             "give the NAME.key_secret file hearth-keygen "
                             "made with it",
                             path);
}

/* Read the curve section of a certificate file (czmq's ZPL format): its
   public key, and its secret key unless secret_txt is NULL.  Parsed by
   hand: czmq's zconfig_load leaks on a file that is not ZPL.  Returns 0 or
   -1 with err. */
static int
s_read_cert (const char *path, char *public_txt, char *secret_txt,
             hearth_error_t *err)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return hearth_errprintf (err, "cannot read key file %s: %s", path,
                                 strerror (errno));
    char line[512], pub[HEARTH_KEY_TXT_LEN + 1] = "",
                                             sec[HEARTH_KEY_TXT_LEN + 1] = "";
    bool in_curve = false;
    while (fgets (line, sizeof line, f)) {
        if (line[0] != ' ' && line[0] != '\t' && line[0] != '#')
            in_curve = strncmp (line, "curve", 5) == 0;
        else if (in_curve && !s_key_line (line, "public-key", pub))
            s_key_line (line, "secret-key", sec);
    }
    fclose (f);
    int rc = 0;
    if (!pub[0])
        rc = hearth_errprintf (err,
                               "%s is not a key file (no curve "
                               "public-key); make keys with "
                               "hearth-keygen",
                               path);
    else if (secret_txt && !sec[0])
        rc = s_no_secret (path, err);
    else {
        memcpy (public_txt, pub, sizeof pub);
        if (secret_txt)
            memcpy (secret_txt, sec, sizeof sec);
    }
    explicit_bzero (sec, sizeof sec);
    return rc;
}

zcert_t *
hearth_keys_load_secret (const char *path, hearth_error_t *err)
{
    struct stat st;
    char pub[HEARTH_KEY_TXT_LEN + 1], sec[HEARTH_KEY_TXT_LEN + 1];
    if (stat (path, &st) < 0) {
        hearth_errprintf (err, "cannot read key file %s: %s", path,
                          strerror (errno));
        return NULL;
    }
    /* Read it before judging its mode: a public key, readable by all as
       it should be, is a wrong file to name, not a secret to protect. */
    if (s_read_cert (path, pub, sec, err) < 0)
        return NULL;
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        explicit_bzero (sec, sizeof sec);
        hearth_errprintf (err,
                          "secret key file %s may be read by others "
                          "(mode %04o): refused; chmod 600 %s",
                          path, (unsigned) (st.st_mode & 07777), path);
        return NULL;
    }
    uint8_t pub_bin[32], sec_bin[32];
    zcert_t *cert = NULL;
    if (zmq_z85_decode (pub_bin, pub) && zmq_z85_decode (sec_bin, sec))
        cert = zcert_new_from (pub_bin, sec_bin);
    explicit_bzero (sec, sizeof sec);
    explicit_bzero (sec_bin, sizeof sec_bin);
    if (!cert)
        hearth_errprintf (err, "%s: bad keys", path);
    return cert;
}

int
hearth_keys_load_public (const char *path, char *buf, size_t size,
                         hearth_error_t *err)
{
    char pub[HEARTH_KEY_TXT_LEN + 1];
    if (size < sizeof pub)
        return hearth_errprintf (err, "key buffer too small");
    if (s_read_cert (path, pub, NULL, err) < 0)
        return -1;
    memcpy (buf, pub, sizeof pub);
    return 0;
}

/* Save with a umask that leaves no access to group and others. */
static int
s_save_private (zcert_t *cert, const char *path)
{
    mode_t old = umask (077);
    int rc = zcert_save_secret (cert, path);
    umask (old);
    return rc == 0 ? chmod (path, 0600) : -1;
}

int
hearth_keys_save (zcert_t *cert, const char *base, const char *name,
                  hearth_error_t *err)
{
    char secret[4200];
    snprintf (secret, sizeof secret, "%s_secret", base);
    if (access (base, F_OK) == 0 || access (secret, F_OK) == 0)
        return hearth_errprintf (err, "%s exists already: not overwritten",
                                 access (base, F_OK) == 0 ? base : secret);
    zcert_set_meta (cert, "name", "%s", name);
    zcert_set_meta (cert, "created-by", "hearth-keygen");
    if (s_save_private (cert, secret) < 0)
        return hearth_errprintf (err, "cannot write %s: %s", secret,
                                 strerror (errno));
    if (zcert_save_public (cert, base) < 0 || chmod (base, 0644) < 0)
        return hearth_errprintf (err, "cannot write %s: %s", base,
                                 strerror (errno));
    return 0;
}

int
hearth_keys_token (char *buf, size_t size)
{
    uint8_t raw[32];
    if (size < 41 || getrandom (raw, sizeof raw, 0) != (ssize_t) sizeof raw)
        return -1;
    return zmq_z85_encode (buf, raw, sizeof raw) ? 0 : -1;
}

bool
hearth_keys_token_eq (const char *a, const char *b)
{
    size_t la = strlen (a), lb = strlen (b);
    unsigned char diff = la != lb;
    for (size_t i = 0; i < la && i < lb; i++)
        diff |= (unsigned char) (a[i] ^ b[i]);
    return diff == 0;
}
