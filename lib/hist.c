/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Work in progress: see the header. */
