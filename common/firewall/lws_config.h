/*
 * Header firewall (see common/CMakeLists.txt): this directory is searched
 * first when common/ is compiled, so any attempt to include <lws_config.h> from the
 * rules library stops the build here.
 */
#error "common/ must not include <lws_config.h>: the rules library is pure C with no I/O, network or storage"
