# hearth-keygen: a cluster's CurveZMQ keys.
bin_PROGRAMS += hearth-keygen
hearth_keygen_SOURCES = tools/keygen.c
hearth_keygen_LDADD = $(CORE_LIBS)
