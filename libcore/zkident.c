/*  zkident.c - the digest identity of the masters' ZooKeeper credentials;
    see zkident.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/zkident.h"

char *
zkident_digest (const char *auth)
{
    const char *colon = strchr (auth, ':');
    if (!colon) {
        errno = EINVAL;
        return NULL;
    }
    /* ZooKeeper's DigestAuthenticationProvider: SHA-1 of the whole
       "user:password", in standard base 64 with its padding */
    char *id = NULL, *hash = NULL;
    zdigest_t *sha1 = zdigest_new ();
    zarmour_t *base64 = zarmour_new ();
    if (sha1 && base64) {
        zarmour_set_mode (base64, ZARMOUR_MODE_BASE64_STD);
        zarmour_set_pad (base64, true);
        zarmour_set_line_breaks (base64, false);
        zdigest_update (sha1, (const byte *) auth, strlen (auth));
        hash =
            zarmour_encode (base64, zdigest_data (sha1), zdigest_size (sha1));
    }
    if (hash && asprintf (&id, "%.*s:%s", (int) (colon - auth), auth, hash) < 0)
        id = NULL;
    free (hash);
    zarmour_destroy (&base64);
    zdigest_destroy (&sha1);
    if (!id)
        errno = ENOMEM;
    return id;
}
