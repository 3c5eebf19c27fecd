# libtf.a (target tf_static, TF::tf_static): the sources, flags and libraries
# every directory gave the shared libtf, compiled again without sharing
# objects, since the shared build's carry its visibility and PIC choices.
# Included last, when those directories have all been read. Not built in
# sanitized builds, which only test the runtime.
if(NOT TF_SANITIZE STREQUAL "")
  return()
endif()
#
# The archive holds ONE object, all of libtf linked with `ld -r`: a linker
# takes a member of an archive only for a symbol it defines that is still
# undefined, and nothing outside libtf names the modules that only run
# constructors (TF_MONITORS at start, the factories registering themselves).
# As one object, whatever pulls libtf in pulls all of it.
get_target_property(tf_sources tf SOURCES)
add_library(tf_static_objects OBJECT ${tf_sources})
foreach(prop INCLUDE_DIRECTORIES COMPILE_OPTIONS COMPILE_DEFINITIONS)
  get_target_property(value tf ${prop})
  if(value)
    set_property(TARGET tf_static_objects PROPERTY ${prop} "${value}")
  endif()
endforeach()
# PIC: libtf.a may go into a user's shared library.
set_target_properties(tf_static_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
set(tf_whole ${CMAKE_CURRENT_BINARY_DIR}/libtf-whole.o)
add_custom_command(OUTPUT ${tf_whole}
  COMMAND ${CMAKE_LINKER} -r -o ${tf_whole} $<TARGET_OBJECTS:tf_static_objects>
  DEPENDS tf_static_objects $<TARGET_OBJECTS:tf_static_objects>
  COMMAND_EXPAND_LISTS VERBATIM
  COMMENT "Linking libtf's objects into one for libtf.a")
add_library(tf_static STATIC ${tf_whole})
add_library(TF::tf_static ALIAS tf_static)
get_target_property(value tf INTERFACE_INCLUDE_DIRECTORIES)
set_property(TARGET tf_static PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${value}")
get_target_property(tf_libraries tf LINK_LIBRARIES)
target_link_libraries(tf_static PRIVATE ${tf_libraries}) # exported as link-only
set_target_properties(tf_static PROPERTIES OUTPUT_NAME tf LINKER_LANGUAGE C)
