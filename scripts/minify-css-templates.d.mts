export declare function minifyCssTemplates(code: string): string;
