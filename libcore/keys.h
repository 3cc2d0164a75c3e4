/*  keys.h - CurveZMQ key files (czmq's certificate format).

    A key pair is two files: NAME (the public key, may be shared) and
    NAME_secret (public and secret key, mode 0600, never shared).  Both are
    czmq certificates ("curve" section with public-key and secret-key),
    so czmq's tools read them too.  A client's key may name the user its
    tasks run as on the workers (its "metadata" section's
    `user = "alice"`, written by hearth-keygen --user; docs/security.md,
    "Tasks run as their submitter").  A secret key file that the group or
    others may read is refused: a key that has leaked authenticates
    nobody.
*/
#ifndef HEARTH_KEYS_H
#define HEARTH_KEYS_H

#include <czmq.h>

#include "libcore/error.h"

/* Length of a Z85-encoded CURVE key, without the NUL. */
#define HEARTH_KEY_TXT_LEN 40
/* Longest user name a key may carry (useradd's limit). */
#define HEARTH_USER_MAX 32

/* Load a key pair from a secret key file.  NULL with err when the file
   cannot be read, is not a czmq certificate with both keys, or may be
   read by group or others.  The caller destroys the certificate. */
zcert_t *hearth_keys_load_secret (const char *path, hearth_error_t *err);

/* Read the public key (Z85, HEARTH_KEY_TXT_LEN characters) of a key file
   (public or secret) into buf (at least HEARTH_KEY_TXT_LEN + 1 bytes).
   Returns 0 or -1 with err. */
int hearth_keys_load_public (const char *path, char *buf, size_t size,
                             hearth_error_t *err);

/* The same, and the user the file names (its metadata's `user`) into
   user (at least HEARTH_USER_MAX + 1 bytes): "" when it names none.  A
   user that is not a user name (hearth_user_name_valid) fails the read:
   -1 with err. */
int hearth_keys_load_public_user (const char *path, char *buf, size_t size,
                                  char *user, size_t user_size,
                                  hearth_error_t *err);

/* Whether name can be a user name on the workers: 1 to HEARTH_USER_MAX
   letters, digits, '.', '_' and '-', not starting with '-' or '.'. */
bool hearth_user_name_valid (const char *name);

/* Write cert as base (public, mode 0644) and base_secret (mode 0600),
   refusing to overwrite either.  name goes into the files' metadata
   (with whatever metadata cert has already, such as a user).
   Returns 0 or -1 with err. */
int hearth_keys_save (zcert_t *cert, const char *base, const char *name,
                      hearth_error_t *err);

/* The text of a secret key file (a czmq secret certificate, as
   hearth_keys_save writes it) for the secret key secret (Z85), its
   public half derived from it, named name (a label, for czmq's tools),
   into buf (size bytes; about 300 do).  For a process that must write
   it itself, where the file could not be opened by path (a worker
   writing a driver's key into a directory its user owns).  The caller
   wipes buf once written.  Returns its length, or -1 with err (not a
   key, buf too small). */
int hearth_keys_secret_text (const char *secret, const char *name, char *buf,
                             size_t size, hearth_error_t *err);

/* A random secret token (Z85 of 32 random bytes) into buf (at least 41
   bytes).  Returns 0 or -1. */
int hearth_keys_token (char *buf, size_t size);

/* Compare two tokens in constant time.  True if equal. */
bool hearth_keys_token_eq (const char *a, const char *b);

#endif
