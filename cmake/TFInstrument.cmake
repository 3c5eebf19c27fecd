# tf_instrument(target [RULES file] [OPTIONS key[=value]...] [STATIC] [OPTIONAL]):
# compile target's C and C++ sources with the TF plugin matching each
# language's compiler (tf.so for GCC, tf-clang.so for Clang) and link libtf.
#
#   find_package(TF REQUIRED)          # an installed TF, or add_subdirectory(tf)
#   add_executable(app app.c)
#   tf_instrument(app RULES tf-rules.txt OPTIONS verbose=1)
#
# RULES: a rules file (docs/design.md .rules), relative to the current source
# directory; its sources recompile when it changes. OPTIONS: plugin options
# (-fplugin-arg-tf-KEY=VALUE, compile steps only); manifest=FILE (relative
# to the current binary directory) is the target's manifest: each source
# writes its own, and they are merged into FILE when the target links
# (TFManifest.cmake). STATIC links libtf.a. Either signature of
# target_link_libraries may come before or after.
# A compiler without a matching plugin (another GCC version than tf.so was
# built for, say) is an error naming both, unless OPTIONAL: then the target
# builds untraced, with a status message.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/TFBuild.cmake OPTIONAL) # TF's own build only

# The plugin target that can load into LANG's compiler, or "" and why not.
function(tf__plugin_for lang out why)
  set(id "${CMAKE_${lang}_COMPILER_ID}")
  set(version "${CMAKE_${lang}_COMPILER_VERSION}")
  set(${out} "" PARENT_SCOPE)
  if(id STREQUAL "GNU")
    get_property(built_for GLOBAL PROPERTY TF_GCC_PLUGIN_FOR)
    if(NOT TARGET TF::gcc_plugin)
      set(${why} "${lang}: TF has no GCC plugin" PARENT_SCOPE)
    elseif(NOT version VERSION_EQUAL built_for)
      # GCC loads a plugin only into the exact version it was built against.
      set(${why} "${lang}: tf.so was built for GCC ${built_for}, the compiler is GCC ${version}" PARENT_SCOPE)
    else()
      set(${out} TF::gcc_plugin PARENT_SCOPE)
    endif()
  elseif(id STREQUAL "Clang")
    get_property(built_for GLOBAL PROPERTY TF_CLANG_PLUGIN_FOR)
    string(REGEX MATCH "^[0-9]+" major "${version}")
    string(REGEX MATCH "^[0-9]+" built_major "${built_for}")
    if(NOT TARGET TF::clang_plugin)
      set(${why} "${lang}: TF has no Clang plugin" PARENT_SCOPE)
    elseif(NOT major STREQUAL built_major)
      set(${why} "${lang}: tf-clang.so was built for Clang ${built_for}, the compiler is Clang ${version}" PARENT_SCOPE)
    else()
      set(${out} TF::clang_plugin PARENT_SCOPE)
    endif()
  else()
    set(${why} "${lang}: no TF plugin for ${id} compilers" PARENT_SCOPE)
  endif()
endfunction()

function(tf__check_args target)
  if(NOT TARGET TF::tf)
    message(FATAL_ERROR "tf_instrument(${target}): no TF::tf target; call "
                        "find_package(TF) (an installed TF) or add_subdirectory(<TF sources>) first")
  endif()
  foreach(opt ${ARGN})
    if(NOT opt MATCHES "^[a-z_-]+(=.*)?$") # min-size=N
      message(FATAL_ERROR "tf_instrument(${target}): plugin option '${opt}' is not KEY or KEY=VALUE")
    endif()
  endforeach()
endfunction()

# Absolute path of the rules file; its target's sources depend on it.
function(tf__rules target file out)
  get_filename_component(rules "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${rules}")
    message(FATAL_ERROR "tf_instrument(${target}): rules file '${rules}' does not exist")
  endif()
  get_target_property(sources ${target} SOURCES)
  set_property(SOURCE ${sources} TARGET_DIRECTORY ${target} APPEND PROPERTY OBJECT_DEPENDS "${rules}")
  set(${out} "${rules}" PARENT_SCOPE)
endfunction()

# manifest=FILE for target: one manifest per source (they compile at once
# under -j), merged into FILE after each link, which also says the rules
# lines that took no function of the target.
function(tf__manifest target file langs)
  get_filename_component(merged "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}.tf-manifest")
  file(MAKE_DIRECTORY "${dir}")
  get_target_property(sources ${target} SOURCES)
  string(REPLACE ";" "," langs "${langs}")
  set(parts)
  set(i 0)
  foreach(src ${sources})
    math(EXPR i "${i} + 1")
    get_filename_component(name "${src}" NAME)
    set(part "${dir}/${i}-${name}.json")
    list(APPEND parts "${part}")
    set_property(SOURCE "${src}" TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS
      "$<$<COMPILE_LANGUAGE:${langs}>:-fplugin-arg-tf-manifest=${part}>")
  endforeach()
  string(REPLACE ";" "|" parts "${parts}") # one argument through the shell
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} "-DTF_MANIFEST=${merged}" "-DTF_TARGET=${target}" "-DTF_PARTS=${parts}"
            -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/TFManifest.cmake"
    VERBATIM)
endfunction()

function(tf_instrument target)
  cmake_parse_arguments(TFI "STATIC;OPTIONAL" "RULES" "OPTIONS" ${ARGN})
  if(TFI_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tf_instrument(${target}): unknown arguments: ${TFI_UNPARSED_ARGUMENTS}")
  endif()
  tf__check_args(${target} ${TFI_OPTIONS})
  set(options)
  set(manifest)
  foreach(opt ${TFI_OPTIONS})
    if(opt MATCHES "^manifest=(.+)$")
      set(manifest "${CMAKE_MATCH_1}")
    else()
      list(APPEND options "${opt}")
    endif()
  endforeach()
  if(TFI_RULES)
    tf__rules(${target} "${TFI_RULES}" rules)
    list(APPEND options "rules=${rules}")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(traced)
  set(missing)
  foreach(lang C CXX)
    if(NOT lang IN_LIST languages)
      continue()
    endif()
    tf__plugin_for(${lang} plugin why)
    if(NOT plugin)
      list(APPEND missing "${why}")
      continue()
    endif()
    list(APPEND traced ${lang})
    set(when "$<COMPILE_LANGUAGE:${lang}>")
    target_compile_options(${target} PRIVATE "$<${when}:-fplugin=$<TARGET_FILE:${plugin}>>")
    foreach(opt ${options})
      target_compile_options(${target} PRIVATE "$<${when}:-fplugin-arg-tf-${opt}>")
    endforeach()
    get_target_property(real ${plugin} ALIASED_TARGET)
    if(real) # TF's own build: the plugin is built first (not a recompile trigger)
      add_dependencies(${target} ${real})
    endif()
  endforeach()
  if(manifest AND traced)
    tf__manifest(${target} "${manifest}" "${traced}")
  endif()
  string(REPLACE ";" "; " missing "${missing}")
  if(NOT traced AND TFI_OPTIONAL)
    message(STATUS "tf_instrument(${target}): built untraced (${missing})")
  elseif(NOT traced)
    message(FATAL_ERROR "tf_instrument(${target}): no TF plugin for the compiler (${missing}); "
                        "use the compiler TF was built with, or tf_instrument(... OPTIONAL)")
  elseif(missing)
    message(WARNING "tf_instrument(${target}): ${missing}; those sources are built untraced")
  endif()
  # The generated code refers to libtf weakly (docs/code-shape.md section 6):
  # pull libtf.a's registry in, keep libtf.so under --as-needed. Appended to
  # the property itself: target_link_libraries would refuse the keyword form
  # after the plain one (most projects' target_link_libraries(app m)), and
  # the plain form after a keyword one.
  if(TFI_STATIC)
    target_link_options(${target} PRIVATE "LINKER:--undefined=tf_tu_register")
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES TF::tf_static)
  else()
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES
      "-Wl,--push-state,--no-as-needed" TF::tf "-Wl,--pop-state")
  endif()
endfunction()
