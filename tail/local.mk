# tail/: hearth-tail, the client of the master's event stream.
bin_PROGRAMS += hearth-tail
hearth_tail_SOURCES = tail/tail.c tail/taillink.c tail/taillink.h \
	tail/tailev.c tail/tailev.h
hearth_tail_LDADD = $(CORE_LIBS)
