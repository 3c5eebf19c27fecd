# tf_instrument(target): compile target's sources with the TF plugin of the
# compiler in use (tf.so for GCC, tf-clang.so for Clang, when that plugin is
# part of the build) and link it with libtf.
#
#   include(cmake/TFInstrument.cmake)
#   add_executable(app app.c)
#   tf_instrument(app)
#
# Extra plugin options: tf_instrument(app OPTIONS verbose=1 manifest=app.json)
include_guard(GLOBAL)

# tf_gcc_plugin_supported(VAR): whether gcc-plugin/ builds tf.so here (GCC with
# its plugin headers, not a sanitized build). Usable before gcc-plugin/ is
# added.
function(tf_gcc_plugin_supported var)
  set(ok FALSE)
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND "${TF_SANITIZE}" STREQUAL "")
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=plugin
                    OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(EXISTS "${dir}/include/gcc-plugin.h")
      set(ok TRUE)
      set(TF_GCC_PLUGIN_DIR "${dir}" PARENT_SCOPE)
    endif()
  endif()
  set(${var} ${ok} PARENT_SCOPE)
endfunction()

function(tf_instrument target)
  cmake_parse_arguments(TFI "" "" "OPTIONS" ${ARGN})
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND TARGET tf_gcc_plugin)
    set(plugin tf_gcc_plugin)
  elseif(CMAKE_C_COMPILER_ID MATCHES "Clang" AND TARGET tf-clang)
    set(plugin tf-clang) # clang-pass/: tf-clang.so registers its LLVM pass itself
  else()
    message(STATUS "tf_instrument(${target}): no TF plugin for ${CMAKE_C_COMPILER_ID}; built untraced")
    target_link_libraries(${target} PRIVATE tf)
    return()
  endif()
  target_compile_options(${target} PRIVATE "-fplugin=$<TARGET_FILE:${plugin}>")
  foreach(opt ${TFI_OPTIONS})
    target_compile_options(${target} PRIVATE "-fplugin-arg-tf-${opt}")
  endforeach()
  add_dependencies(${target} ${plugin}) # built before, not a recompile trigger
  target_link_libraries(${target} PRIVATE tf)
endfunction()
