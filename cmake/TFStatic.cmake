# libtf.a (target tf_static, TF::tf_static): the sources, flags and libraries
# every directory gave the shared libtf, compiled again without sharing
# objects, since the shared build's carry its visibility and PIC choices.
# Included last, when those directories have all been read. Not built in
# sanitized builds, which only test the runtime.
if(NOT TF_SANITIZE STREQUAL "")
  return()
endif()
get_target_property(tf_sources tf SOURCES)
add_library(tf_static STATIC ${tf_sources})
add_library(TF::tf_static ALIAS tf_static)
foreach(prop INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES COMPILE_OPTIONS COMPILE_DEFINITIONS)
  get_target_property(value tf ${prop})
  if(value)
    set_property(TARGET tf_static PROPERTY ${prop} "${value}")
  endif()
endforeach()
get_target_property(tf_libraries tf LINK_LIBRARIES)
target_link_libraries(tf_static PRIVATE ${tf_libraries}) # exported as link-only
# PIC: libtf.a may go into a user's shared library.
set_target_properties(tf_static PROPERTIES OUTPUT_NAME tf POSITION_INDEPENDENT_CODE ON)
