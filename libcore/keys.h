/*  keys.h - CurveZMQ key files (czmq's certificate format).

    A key pair is two files: NAME (the public key, may be shared) and
    NAME_secret (public and secret key, mode 0600, never shared).  Both are
    czmq certificates ("curve" section with public-key and secret-key),
    so czmq's tools read them too.  A secret key file that the group or
    others may read is refused: a key that has leaked authenticates
    nobody.
*/
#ifndef HEARTH_KEYS_H
#define HEARTH_KEYS_H

#include <czmq.h>

#include "libcore/error.h"

/* Length of a Z85-encoded CURVE key, without the NUL. */
#define HEARTH_KEY_TXT_LEN 40

/* Load a key pair from a secret key file.  NULL with err when the file
   cannot be read, is not a czmq certificate with both keys, or may be
   read by group or others.  The caller destroys the certificate. */
zcert_t *hearth_keys_load_secret (const char *path, hearth_error_t *err);

/* Read the public key (Z85, HEARTH_KEY_TXT_LEN characters) of a key file
   (public or secret) into buf (at least HEARTH_KEY_TXT_LEN + 1 bytes).
   Returns 0 or -1 with err. */
int hearth_keys_load_public (const char *path, char *buf, size_t size,
                             hearth_error_t *err);

/* Write cert as base (public, mode 0644) and base_secret (mode 0600),
   refusing to overwrite either.  name goes into the files' metadata.
   Returns 0 or -1 with err. */
int hearth_keys_save (zcert_t *cert, const char *base, const char *name,
                      hearth_error_t *err);

/* A random secret token (Z85 of 32 random bytes) into buf (at least 41
   bytes).  Returns 0 or -1. */
int hearth_keys_token (char *buf, size_t size);

/* Compare two tokens in constant time.  True if equal. */
bool hearth_keys_token_eq (const char *a, const char *b);

#endif
