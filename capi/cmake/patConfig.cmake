# find_package(pat) for the pat C API installed by scripts/capi-install:
# the imported target pat::pat (a static library, its header folder and the
# system libraries it needs).
get_filename_component(_pat_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET pat::pat)
  add_library(pat::pat STATIC IMPORTED)
  set_target_properties(pat::pat PROPERTIES
    IMPORTED_LOCATION "${_pat_prefix}/lib/libpat_capi.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_pat_prefix}/include"
    INTERFACE_LINK_LIBRARIES "pthread;dl;m")
endif()
set(pat_FOUND TRUE)
unset(_pat_prefix)
