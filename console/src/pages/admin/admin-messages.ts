import { addMessages } from '../../i18n';
import * as admin from '../../messages/admin';

// Evaluated with the administration chunk, before any of its pages renders: its messages stay out of
// the entry script, whose size is bounded (the keys other pages name are in core).
addMessages(admin);
