/*  childenv.c - what a worker's children inherit of its environment;
    see childenv.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "worker/childenv.h"

extern char **environ;

/* The worker's HEARTH_* variables that every child gets: where the
   programs and the defaults file are, and (its own user's children
   only) the local cookie. */
static const char *const s_hearth_kept[] = {"HEARTH_BIN_DIR", "HEARTH_CONF_DIR",
                                            NULL};
static const char s_cookie[] = "HEARTH_COOKIE";

/* What a child run as another user gets of the worker's environment,
   by name, and by prefix (LC_ALL, LC_CTYPE...). */
static const char *const s_allowed[] = {
    "PATH", "LANG", "LANGUAGE", "TZ",
#if defined(__SANITIZE_ADDRESS__)
    /* read only by a build with the sanitizers (the tests') */
    "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
#endif
    NULL};
static const char *const s_allowed_prefixes[] = {"LC_", NULL};

/* entry's name (len bytes) is name. */
static bool
s_is (const char *entry, size_t len, const char *name)
{
    return strlen (name) == len && strncmp (entry, name, len) == 0;
}

static bool
s_listed (const char *entry, size_t len, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        if (s_is (entry, len, names[i]))
            return true;
    return false;
}

bool
childenv_inherits (const char *entry, bool switched)
{
    const char *eq = strchr (entry, '=');
    if (!eq || eq == entry)
        return false;
    size_t len = (size_t) (eq - entry);
    if (s_listed (entry, len, s_hearth_kept))
        return true;
    if (!switched)
        return strncmp (entry, "HEARTH_", 7) != 0
               || s_is (entry, len, s_cookie);
    if (s_listed (entry, len, s_allowed))
        return true;
    for (size_t i = 0; s_allowed_prefixes[i]; i++)
        if (strncmp (entry, s_allowed_prefixes[i],
                     strlen (s_allowed_prefixes[i]))
            == 0)
            return true;
    return false;
}

const char **
childenv_inherited (char *const *env, bool switched)
{
    static char *const none[] = {NULL};
    env = env ? env : environ ? environ : none;
    size_t n = 0;
    while (env[n])
        n++;
    const char **out = calloc (n + 1, sizeof *out);
    if (!out) {
        errno = ENOMEM;
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (childenv_inherits (env[i], switched))
            out[k++] = env[i];
    return out;
}
