/*  test_zkowner.c - unit tests of libcore/zkident.c and zkowner.c: the
    digest identity of the masters' ZooKeeper credentials (checked
    against openssl's SHA-1 and base64 of the same text, as ZooKeeper's
    DigestAuthenticationProvider makes it), and which identities of an
    ACL a master with those credentials, or without, takes for someone
    else's with more than READ.  zkowner_check needs a server: test-ha-
    zkowner.sh runs it against a real one. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zookeeper/zookeeper.h>

#include "libcore/zkident.h"
#include "libcore/zkowner.h"
#include "tests/unit/testutil.h"

static void
test_digest (void **state)
{
    (void) state;
    /* printf '%s' 'evil:pw' | openssl dgst -binary -sha1 | base64 */
    char *id = zkident_digest ("evil:pw");
    assert_string_equal (id, "evil:VG59WBCCn50+bxJ80kJ3x0QVT90=");
    free (id);
    id = zkident_digest ("hearth:s3cret");
    assert_string_equal (id, "hearth:Sakg+ofU+LBTszqdMBDTK1QEjfA=");
    free (id);
    /* the user ends at the first ':'; the whole line is hashed */
    id = zkident_digest ("hearth:a:b");
    assert_string_equal (id, "hearth:7gVDuEyDVpOMO6YouHsHOSe5k7M=");
    free (id);
    errno = 0;
    assert_null (zkident_digest ("no-colon"));
    assert_int_equal (errno, EINVAL);
}

#define ENTRY(perms, scheme, id)                                               \
    {                                                                          \
        (perms),                                                               \
        {                                                                      \
            (char *) (scheme), (char *) (id)                                   \
        }                                                                      \
    }

static const char *s_self = "hearth:Sakg+ofU+LBTszqdMBDTK1QEjfA=";

static void
test_others (void **state)
{
    (void) state;
    char buf[256];
    /* the stranger's directory of test-ha-zkowner.sh */
    struct ACL owned[] = {
        ENTRY (ZOO_PERM_ALL, "digest", "evil:VG59WBCCn50+bxJ80kJ3x0QVT90="),
        ENTRY (ZOO_PERM_READ, "world", "anyone"),
        ENTRY (ZOO_PERM_CREATE, "ip", "127.0.0.1"),
    };
    struct ACL_vector v = {3, owned};
    assert_string_equal (zkowner_others (&v, s_self, buf, sizeof buf),
                         "digest:evil:VG59WBCCn50+bxJ80kJ3x0QVT90= 'cdrwa', "
                         "ip:127.0.0.1 'c'");
    /* without credentials the same are others */
    assert_string_equal (zkowner_others (&v, NULL, buf, sizeof buf),
                         "digest:evil:VG59WBCCn50+bxJ80kJ3x0QVT90= 'cdrwa', "
                         "ip:127.0.0.1 'c'");
    /* the masters' own directory: nobody else; READ alone is no right
       that matters, and everyone's rights are judged apart */
    struct ACL ours[] = {
        ENTRY (ZOO_PERM_ALL, "digest", s_self),
        ENTRY (ZOO_PERM_READ, "world", "anyone"),
        ENTRY (ZOO_PERM_READ, "digest", "evil:VG59WBCCn50+bxJ80kJ3x0QVT90="),
        ENTRY (ZOO_PERM_ALL, "world", "anyone"),
    };
    v = (struct ACL_vector){4, ours};
    assert_string_equal (zkowner_others (&v, s_self, buf, sizeof buf), "");
    /* ... but without credentials the masters' identity is anyone's */
    assert_string_equal (zkowner_others (&v, NULL, buf, sizeof buf),
                         "digest:hearth:Sakg+ofU+LBTszqdMBDTK1QEjfA= 'cdrwa'");
    /* the same user with another password is another identity; ADMIN
       alone is more than READ (it gives the rest) */
    struct ACL twin[] = {
        ENTRY (ZOO_PERM_ALL, "digest", "hearth:7gVDuEyDVpOMO6YouHsHOSe5k7M="),
        ENTRY (ZOO_PERM_ADMIN, "sasl", "zkadmin"),
    };
    v = (struct ACL_vector){2, twin};
    assert_string_equal (zkowner_others (&v, s_self, buf, sizeof buf),
                         "digest:hearth:7gVDuEyDVpOMO6YouHsHOSe5k7M= 'cdrwa', "
                         "sasl:zkadmin 'a'");
    /* ZooKeeper hides a digest's hash from a client without ADMIN on the
       node: one of the masters' user might be theirs or not, and says
       so; another user's is just another's */
    struct ACL hidden[] = {
        ENTRY (ZOO_PERM_ALL & ~ZOO_PERM_ADMIN, "digest", "hearth:x"),
        ENTRY (ZOO_PERM_ALL, "digest", "evil:x"),
    };
    v = (struct ACL_vector){2, hidden};
    assert_string_equal (zkowner_others (&v, s_self, buf, sizeof buf),
                         "digest:hearth:x 'cdrw' (this user's, but ZooKeeper "
                         "shows which password only to holders of ADMIN "
                         "there: these masters need it to know their own), "
                         "digest:evil:x 'cdrwa'");
    /* cut to the buffer, always terminated */
    v = (struct ACL_vector){2, twin};
    assert_string_equal (zkowner_others (&v, s_self, buf, 12), "digest:hear");
    v = (struct ACL_vector){0, NULL};
    assert_string_equal (zkowner_others (&v, s_self, buf, sizeof buf), "");
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_digest),
        cmocka_unit_test (test_others),
    };
    return cmocka_run_group_tests_name ("zkowner", tests, NULL, NULL);
}
