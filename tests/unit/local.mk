# Unit tests: one cmocka program per libcore module.
UNIT_TESTS =
TESTS += $(UNIT_TESTS)
check_PROGRAMS += $(UNIT_TESTS)
unit_libs = $(CORE_LIBS) $(CMOCKA_LIBS)
unit_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

UNIT_TESTS += tests/unit/test_proto
tests_unit_test_proto_SOURCES = tests/unit/test_proto.c tests/unit/testutil.h
tests_unit_test_proto_CFLAGS = $(unit_cflags)
tests_unit_test_proto_LDADD = $(unit_libs)
