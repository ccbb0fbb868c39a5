// The generator's query, for the test that compares the committed runs with chdb.
export declare const WIDTHS_SQL: string;
