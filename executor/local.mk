# hearth-executor: runs an application's tasks on one node.
bin_PROGRAMS += hearth-executor
hearth_executor_SOURCES = \
	executor/executor.h \
	executor/tlist.h \
	executor/link.h \
	executor/tasks.h \
	executor/cmdrun.h \
	executor/fnpool.h \
	executor/libs.h \
	executor/files.h \
	executor/main.c \
	executor/link.c executor/link_int.h executor/orders.c \
	executor/peak.c executor/peak.h \
	executor/tasks.c \
	executor/resalloc.c executor/resalloc.h \
	executor/cmdrun.c \
	executor/fnpool.c \
	executor/libs.c \
	executor/files.c \
	executor/shipfetch.c executor/shipfetch.h \
	executor/shipcache.c executor/shipcache.h \
	executor/shippeers.c executor/shippeers.h \
	executor/fetch.c executor/fetch.h \
	executor/shuffletask.c executor/shuffletask.h \
	executor/reducein.c executor/reducein.h \
	executor/partcache.c executor/partcache.h
hearth_executor_LDADD = $(CORE_LIBS) -ldl -lpthread
