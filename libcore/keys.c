/*  keys.c - reading and writing CurveZMQ key files; see keys.h. */
#include "config.h"

#include <ctype.h>
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

/* The quoted value of `name = "value"` on line into out (max + 1
   bytes), when line holds that name and the value is at most max
   characters (exactly max when exact).  Returns true if it does.  out
   NULL: whether line names name at all. */
static bool
s_value_line (const char *line, const char *name, char *out, size_t max,
              bool exact)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strlen (name);
    if (strncmp (line, name, n) != 0
        || (line[n] != ' ' && line[n] != '\t' && line[n] != '='))
        return false;
    if (!out)
        return true;
    const char *q = strchr (line + n, '"');
    const char *end = q ? strchr (q + 1, '"') : NULL;
    size_t len = end ? (size_t) (end - q - 1) : 0;
    if (!end || len > max || (exact && len != max))
        return false;
    memcpy (out, q + 1, len);
    out[len] = '\0';
    return true;
}

static bool
s_key_line (const char *line, const char *name, char *out)
{
    return s_value_line (line, name, out, HEARTH_KEY_TXT_LEN, true);
}

bool
hearth_user_name_valid (const char *name)
{
    size_t n = strlen (name);
    if (n == 0 || n > HEARTH_USER_MAX || name[0] == '-' || name[0] == '.')
        return false;
    for (const char *p = name; *p; p++)
        if (!isalnum ((unsigned char) *p) && !strchr ("._-", *p))
            return false;
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

/* What a certificate file holds (NUL-terminated; "" when absent). */
typedef struct {
    char pub[HEARTH_KEY_TXT_LEN + 1]; /* curve public-key */
    char sec[HEARTH_KEY_TXT_LEN + 1]; /* curve secret-key */
    char user[HEARTH_USER_MAX + 2];   /* metadata user (one more byte: a
                                         longer value is told apart) */
    bool bad_user;                    /* a user line that is no name */
} s_cert_t;

/* Read the curve and metadata sections of a certificate file (czmq's ZPL
   format) into c.  Parsed by hand: czmq's zconfig_load leaks on a file
   that is not ZPL.  Returns 0 or -1 with err (no public key). */
static int
s_parse_cert (const char *path, s_cert_t *c, hearth_error_t *err)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return hearth_errprintf (err, "cannot read key file %s: %s", path,
                                 strerror (errno));
    char line[512];
    enum { OTHER, CURVE, META } in = OTHER;
    memset (c, 0, sizeof *c);
    while (fgets (line, sizeof line, f)) {
        if (line[0] != ' ' && line[0] != '\t' && line[0] != '#')
            in = strncmp (line, "curve", 5) == 0      ? CURVE
                 : strncmp (line, "metadata", 8) == 0 ? META
                                                      : OTHER;
        else if (in == CURVE && !s_key_line (line, "public-key", c->pub))
            s_key_line (line, "secret-key", c->sec);
        else if (in == META && s_value_line (line, "user", NULL, 0, false))
            c->bad_user =
                !s_value_line (line, "user", c->user, sizeof c->user - 1, false)
                || !hearth_user_name_valid (c->user);
    }
    explicit_bzero (line, sizeof line);
    fclose (f);
    if (!c->pub[0])
        return hearth_errprintf (err,
                                 "%s is not a key file (no curve "
                                 "public-key); make keys with "
                                 "hearth-keygen",
                                 path);
    return 0;
}

/* Read the curve section of a certificate file: its public key, and its
   secret key unless secret_txt is NULL.  Returns 0 or -1 with err. */
static int
s_read_cert (const char *path, char *public_txt, char *secret_txt,
             hearth_error_t *err)
{
    s_cert_t c;
    int rc = s_parse_cert (path, &c, err);
    if (rc == 0 && secret_txt && !c.sec[0])
        rc = s_no_secret (path, err);
    else if (rc == 0) {
        memcpy (public_txt, c.pub, sizeof c.pub);
        if (secret_txt)
            memcpy (secret_txt, c.sec, sizeof c.sec);
    }
    explicit_bzero (&c, sizeof c);
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

int
hearth_keys_load_public_user (const char *path, char *buf, size_t size,
                              char *user, size_t user_size, hearth_error_t *err)
{
    s_cert_t c;
    if (size < sizeof c.pub || user_size < HEARTH_USER_MAX + 1)
        return hearth_errprintf (err, "key buffer too small");
    if (s_parse_cert (path, &c, err) < 0)
        return -1;
    int rc = 0;
    if (c.bad_user)
        rc = hearth_errprintf (err,
                               "%s: its user '%.40s' is not a user name "
                               "(letters, digits, '.', '_', '-', at most "
                               "%d)",
                               path, c.user, HEARTH_USER_MAX);
    else {
        memcpy (buf, c.pub, sizeof c.pub);
        snprintf (user, user_size, "%s", c.user);
    }
    explicit_bzero (&c, sizeof c);
    return rc;
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
hearth_keys_secret_text (const char *secret, const char *name, char *buf,
                         size_t size, hearth_error_t *err)
{
    char pub[HEARTH_KEY_TXT_LEN + 1];
    uint8_t bin[32];
    /* a key is 40 characters of Z85, and its public half derives from it */
    bool key = secret && strlen (secret) == HEARTH_KEY_TXT_LEN
               && zmq_z85_decode (bin, secret)
               && zmq_curve_public (pub, secret) == 0;
    explicit_bzero (bin, sizeof bin);
    if (!key)
        return hearth_errprintf (err, "not a CURVE secret key");
    int n = snprintf (buf, size,
                      "#   ZeroMQ CURVE **Secret** Certificate\n"
                      "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor "
                      "change its permissions.\n\n"
                      "metadata\n"
                      "    name = \"%s\"\n"
                      "    created-by = \"hearth-master\"\n"
                      "curve\n"
                      "    public-key = \"%s\"\n"
                      "    secret-key = \"%s\"\n",
                      name, pub, secret);
    if (n < 0 || (size_t) n >= size) {
        explicit_bzero (buf, size);
        return hearth_errprintf (err, "a key file's text is too long");
    }
    return n;
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
