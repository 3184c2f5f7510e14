/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_EXPORT_H
#define SHIM_LINUX_EXPORT_H

/* A redeclaration: valid at file scope, and it checks the symbol exists. */
#define EXPORT_SYMBOL(sym)	extern __typeof__(sym) sym
#define EXPORT_SYMBOL_GPL(sym)	extern __typeof__(sym) sym

#endif
