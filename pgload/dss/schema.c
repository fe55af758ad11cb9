/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SQL of the TPC-H-derived schema (see schema.h). */
#include "pgload/dss/schema.h"

static const char *const create[DSS_NTABLES] = {
	[DSS_REGION] = "create table region (r_regionkey integer not null,"
		" r_name char(25) not null, r_comment varchar(152))",
	[DSS_NATION] = "create table nation (n_nationkey integer not null,"
		" n_name char(25) not null, n_regionkey integer not null,"
		" n_comment varchar(152))",
	[DSS_SUPPLIER] = "create table supplier (s_suppkey integer not null,"
		" s_name char(25) not null, s_address varchar(40) not null,"
		" s_nationkey integer not null, s_phone char(15) not null,"
		" s_acctbal decimal(15,2) not null, s_comment varchar(101) not null)",
	[DSS_PART] = "create table part (p_partkey integer not null,"
		" p_name varchar(55) not null, p_mfgr char(25) not null,"
		" p_brand char(10) not null, p_type varchar(25) not null,"
		" p_size integer not null, p_container char(10) not null,"
		" p_retailprice decimal(15,2) not null, p_comment varchar(23) not null)",
	[DSS_PARTSUPP] = "create table partsupp (ps_partkey integer not null,"
		" ps_suppkey integer not null, ps_availqty integer not null,"
		" ps_supplycost decimal(15,2) not null, ps_comment varchar(199) not null)",
	[DSS_CUSTOMER] = "create table customer (c_custkey integer not null,"
		" c_name varchar(25) not null, c_address varchar(40) not null,"
		" c_nationkey integer not null, c_phone char(15) not null,"
		" c_acctbal decimal(15,2) not null, c_mktsegment char(10) not null,"
		" c_comment varchar(117) not null)",
	[DSS_ORDERS] = "create table orders (o_orderkey bigint not null,"
		" o_custkey integer not null, o_orderstatus char(1) not null,"
		" o_totalprice decimal(15,2) not null, o_orderdate date not null,"
		" o_orderpriority char(15) not null, o_clerk char(15) not null,"
		" o_shippriority integer not null, o_comment varchar(79) not null)",
	[DSS_LINEITEM] = "create table lineitem (l_orderkey bigint not null,"
		" l_partkey integer not null, l_suppkey integer not null,"
		" l_linenumber integer not null, l_quantity decimal(15,2) not null,"
		" l_extendedprice decimal(15,2) not null, l_discount decimal(15,2) not null,"
		" l_tax decimal(15,2) not null, l_returnflag char(1) not null,"
		" l_linestatus char(1) not null, l_shipdate date not null,"
		" l_commitdate date not null, l_receiptdate date not null,"
		" l_shipinstruct char(25) not null, l_shipmode char(10) not null,"
		" l_comment varchar(44) not null)",
};

#define PK(t, cols) { DSS_KEY_PRIMARY, t "_pkey", \
	"alter table " t " add constraint " t "_pkey primary key (" cols ")" }
#define IDX(name, t, cols) { DSS_KEY_INDEX, name, \
	"create index " name " on " t " (" cols ")" }
#define FK(name, t, cols, ref, refcols) { DSS_KEY_FOREIGN, name, \
	"alter table " t " add constraint " name " foreign key (" cols ") references " \
	ref " (" refcols ")" }

static const struct dss_key_stmt keys[] = {
	PK("region", "r_regionkey"),
	PK("nation", "n_nationkey"),
	PK("supplier", "s_suppkey"),
	PK("part", "p_partkey"),
	PK("partsupp", "ps_partkey, ps_suppkey"),
	PK("customer", "c_custkey"),
	PK("orders", "o_orderkey"),
	PK("lineitem", "l_orderkey, l_linenumber"),
	IDX("nation_regionkey_idx", "nation", "n_regionkey"),
	IDX("supplier_nationkey_idx", "supplier", "s_nationkey"),
	IDX("customer_nationkey_idx", "customer", "c_nationkey"),
	IDX("partsupp_suppkey_idx", "partsupp", "ps_suppkey"),
	IDX("orders_custkey_idx", "orders", "o_custkey"),
	IDX("orders_orderdate_idx", "orders", "o_orderdate"),
	IDX("lineitem_partkey_suppkey_idx", "lineitem", "l_partkey, l_suppkey"),
	IDX("lineitem_shipdate_idx", "lineitem", "l_shipdate"),
	FK("nation_regionkey_fkey", "nation", "n_regionkey", "region", "r_regionkey"),
	FK("supplier_nationkey_fkey", "supplier", "s_nationkey", "nation", "n_nationkey"),
	FK("customer_nationkey_fkey", "customer", "c_nationkey", "nation", "n_nationkey"),
	FK("partsupp_partkey_fkey", "partsupp", "ps_partkey", "part", "p_partkey"),
	FK("partsupp_suppkey_fkey", "partsupp", "ps_suppkey", "supplier", "s_suppkey"),
	FK("orders_custkey_fkey", "orders", "o_custkey", "customer", "c_custkey"),
	FK("lineitem_orderkey_fkey", "lineitem", "l_orderkey", "orders", "o_orderkey"),
	FK("lineitem_partsupp_fkey", "lineitem", "l_partkey, l_suppkey", "partsupp",
	   "ps_partkey, ps_suppkey"),
};

const char *dss_schema_create(enum dss_table t)
{
	return t < DSS_NTABLES ? create[t] : NULL;
}

const struct dss_key_stmt *dss_schema_keys(unsigned *ret_n)
{
	*ret_n = sizeof(keys) / sizeof(keys[0]);
	return keys;
}

const char *dss_key_kind_name(enum dss_key_kind k)
{
	switch (k) {
	case DSS_KEY_PRIMARY: return "primary key";
	case DSS_KEY_INDEX: return "index";
	case DSS_KEY_FOREIGN: return "foreign key";
	}
	return "?";
}
