var e=globalThis,t=e=>e,n=e.trustedTypes,r=n?n.createPolicy(`lit-html`,{createHTML:e=>e}):void 0,i=`$lit$`,a=`lit$${Math.random().toFixed(9).slice(2)}$`,o=`?`+a,s=`<${o}>`,c=document,l=()=>c.createComment(``),u=e=>e===null||typeof e!=`object`&&typeof e!=`function`,d=Array.isArray,f=e=>d(e)||typeof e?.[Symbol.iterator]==`function`,p=`[ 	
\f\r]`,m=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,h=/-->/g,ee=/>/g,g=RegExp(`>|${p}(?:([^\\s"'>=/]+)(${p}*=${p}*(?:[^ \t\n\f\r"'\`<>=]|("|')|))|$)`,`g`),te=/'/g,ne=/"/g,re=/^(?:script|style|textarea|title)$/i,_=(e=>(t,...n)=>({_$litType$:e,strings:t,values:n}))(1),v=Symbol.for(`lit-noChange`),y=Symbol.for(`lit-nothing`),b=new WeakMap,x=c.createTreeWalker(c,129);function ie(e,t){if(!d(e)||!e.hasOwnProperty(`raw`))throw Error(`invalid template strings array`);return r===void 0?t:r.createHTML(t)}var ae=(e,t)=>{let n=e.length-1,r=[],o,c=t===2?`<svg>`:t===3?`<math>`:``,l=m;for(let t=0;t<n;t++){let n=e[t],u,d,f=-1,p=0;for(;p<n.length&&(l.lastIndex=p,d=l.exec(n),d!==null);)p=l.lastIndex,l===m?d[1]===`!--`?l=h:d[1]===void 0?d[2]===void 0?d[3]!==void 0&&(l=g):(re.test(d[2])&&(o=RegExp(`</`+d[2],`g`)),l=g):l=ee:l===g?d[0]===`>`?(l=o??m,f=-1):d[1]===void 0?f=-2:(f=l.lastIndex-d[2].length,u=d[1],l=d[3]===void 0?g:d[3]===`"`?ne:te):l===ne||l===te?l=g:l===h||l===ee?l=m:(l=g,o=void 0);let _=l===g&&e[t+1].startsWith(`/>`)?` `:``;c+=l===m?n+s:f>=0?(r.push(u),n.slice(0,f)+i+n.slice(f)+a+_):n+a+(f===-2?t:_)}return[ie(e,c+(e[n]||`<?>`)+(t===2?`</svg>`:t===3?`</math>`:``)),r]},S=class e{constructor({strings:t,_$litType$:r},s){let c;this.parts=[];let u=0,d=0,f=t.length-1,p=this.parts,[m,h]=ae(t,r);if(this.el=e.createElement(m,s),x.currentNode=this.el.content,r===2||r===3){let e=this.el.content.firstChild;e.replaceWith(...e.childNodes)}for(;(c=x.nextNode())!==null&&p.length<f;){if(c.nodeType===1){if(c.hasAttributes())for(let e of c.getAttributeNames())if(e.endsWith(i)){let t=h[d++],n=c.getAttribute(e).split(a),r=/([.?@])?(.*)/.exec(t);p.push({type:1,index:u,name:r[2],strings:n,ctor:r[1]===`.`?se:r[1]===`?`?ce:r[1]===`@`?le:T}),c.removeAttribute(e)}else e.startsWith(a)&&(p.push({type:6,index:u}),c.removeAttribute(e));if(re.test(c.tagName)){let e=c.textContent.split(a),t=e.length-1;if(t>0){c.textContent=n?n.emptyScript:``;for(let n=0;n<t;n++)c.append(e[n],l()),x.nextNode(),p.push({type:2,index:++u});c.append(e[t],l())}}}else if(c.nodeType===8){if(c.data===o)p.push({type:2,index:u});else{let e=-1;for(;(e=c.data.indexOf(a,e+1))!==-1;)p.push({type:7,index:u}),e+=a.length-1}}u++}}static createElement(e,t){let n=c.createElement(`template`);return n.innerHTML=e,n}};function C(e,t,n=e,r){if(t===v)return t;let i=r===void 0?n._$Cl:n._$Co?.[r],a=u(t)?void 0:t._$litDirective$;return i?.constructor!==a&&(i?._$AO?.(!1),a===void 0?i=void 0:(i=new a(e),i._$AT(e,n,r)),r===void 0?n._$Cl=i:(n._$Co??=[])[r]=i),i!==void 0&&(t=C(e,i._$AS(e,t.values),i,r)),t}var oe=class{constructor(e,t){this._$AV=[],this._$AN=void 0,this._$AD=e,this._$AM=t}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(e){let{el:{content:t},parts:n}=this._$AD,r=(e?.creationScope??c).importNode(t,!0);x.currentNode=r;let i=x.nextNode(),a=0,o=0,s=n[0];for(;s!==void 0;){if(a===s.index){let t;s.type===2?t=new w(i,i.nextSibling,this,e):s.type===1?t=new s.ctor(i,s.name,s.strings,this,e):s.type===6&&(t=new ue(i,this,e)),this._$AV.push(t),s=n[++o]}a!==s?.index&&(i=x.nextNode(),a++)}return x.currentNode=c,r}p(e){let t=0;for(let n of this._$AV)n!==void 0&&(n.strings===void 0?n._$AI(e[t]):(n._$AI(e,n,t),t+=n.strings.length-2)),t++}},w=class e{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(e,t,n,r){this.type=2,this._$AH=y,this._$AN=void 0,this._$AA=e,this._$AB=t,this._$AM=n,this.options=r,this._$Cv=r?.isConnected??!0}get parentNode(){let e=this._$AA.parentNode,t=this._$AM;return t!==void 0&&e?.nodeType===11&&(e=t.parentNode),e}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(e,t=this){e=C(this,e,t),u(e)?e===y||e==null||e===``?(this._$AH!==y&&this._$AR(),this._$AH=y):e!==this._$AH&&e!==v&&this._(e):e._$litType$===void 0?e.nodeType===void 0?f(e)?this.k(e):this._(e):this.T(e):this.$(e)}O(e){return this._$AA.parentNode.insertBefore(e,this._$AB)}T(e){this._$AH!==e&&(this._$AR(),this._$AH=this.O(e))}_(e){this._$AH!==y&&u(this._$AH)?this._$AA.nextSibling.data=e:this.T(c.createTextNode(e)),this._$AH=e}$(e){let{values:t,_$litType$:n}=e,r=typeof n==`number`?this._$AC(e):(n.el===void 0&&(n.el=S.createElement(ie(n.h,n.h[0]),this.options)),n);if(this._$AH?._$AD===r)this._$AH.p(t);else{let e=new oe(r,this),n=e.u(this.options);e.p(t),this.T(n),this._$AH=e}}_$AC(e){let t=b.get(e.strings);return t===void 0&&b.set(e.strings,t=new S(e)),t}k(t){d(this._$AH)||(this._$AH=[],this._$AR());let n=this._$AH,r,i=0;for(let a of t)i===n.length?n.push(r=new e(this.O(l()),this.O(l()),this,this.options)):r=n[i],r._$AI(a),i++;i<n.length&&(this._$AR(r&&r._$AB.nextSibling,i),n.length=i)}_$AR(e=this._$AA.nextSibling,n){for(this._$AP?.(!1,!0,n);e!==this._$AB;){let n=t(e).nextSibling;t(e).remove(),e=n}}setConnected(e){this._$AM===void 0&&(this._$Cv=e,this._$AP?.(e))}},T=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(e,t,n,r,i){this.type=1,this._$AH=y,this._$AN=void 0,this.element=e,this.name=t,this._$AM=r,this.options=i,n.length>2||n[0]!==``||n[1]!==``?(this._$AH=Array(n.length-1).fill(new String),this.strings=n):this._$AH=y}_$AI(e,t=this,n,r){let i=this.strings,a=!1;if(i===void 0)e=C(this,e,t,0),a=!u(e)||e!==this._$AH&&e!==v,a&&(this._$AH=e);else{let r=e,o,s;for(e=i[0],o=0;o<i.length-1;o++)s=C(this,r[n+o],t,o),s===v&&(s=this._$AH[o]),a||=!u(s)||s!==this._$AH[o],s===y?e=y:e!==y&&(e+=(s??``)+i[o+1]),this._$AH[o]=s}a&&!r&&this.j(e)}j(e){e===y?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,e??``)}},se=class extends T{constructor(){super(...arguments),this.type=3}j(e){this.element[this.name]=e===y?void 0:e}},ce=class extends T{constructor(){super(...arguments),this.type=4}j(e){this.element.toggleAttribute(this.name,!!e&&e!==y)}},le=class extends T{constructor(e,t,n,r,i){super(e,t,n,r,i),this.type=5}_$AI(e,t=this){if((e=C(this,e,t,0)??y)===v)return;let n=this._$AH,r=e===y&&n!==y||e.capture!==n.capture||e.once!==n.once||e.passive!==n.passive,i=e!==y&&(n===y||r);r&&this.element.removeEventListener(this.name,this,n),i&&this.element.addEventListener(this.name,this,e),this._$AH=e}handleEvent(e){typeof this._$AH==`function`?this._$AH.call(this.options?.host??this.element,e):this._$AH.handleEvent(e)}},ue=class{constructor(e,t,n){this.element=e,this.type=6,this._$AN=void 0,this._$AM=t,this.options=n}get _$AU(){return this._$AM._$AU}_$AI(e){C(this,e)}},de={M:i,P:a,A:o,C:1,L:ae,R:oe,D:f,V:C,I:w,H:T,N:ce,U:le,B:se,F:ue},fe=e.litHtmlPolyfillSupport;fe?.(S,w),(e.litHtmlVersions??=[]).push(`3.3.3`);var pe=(e,t,n)=>{let r=n?.renderBefore??t,i=r._$litPart$;if(i===void 0){let e=n?.renderBefore??null;r._$litPart$=i=new w(t.insertBefore(l(),e),e,void 0,n??{})}return i._$AI(e),i},E=class extends Error{status;constructor(e,t){super(e),this.status=t,this.name=`ApiError`}},me=`api/v1`;function he(e,t,n){let r=n&&typeof n==`object`&&`error`in n&&typeof n.error==`string`?n.error:null;return t===null?`Could not ${e}: Switchboard is not answering. Is it still running?`:t===401?`Could not ${e}: this page is not signed in, so it can only show the status. Open it with \`switchboard dashboard\` (or from the Switchboard app) to change servers.`:t===403?`Could not ${e}: Switchboard only accepts requests from pages it serves itself on this computer.`:t===404&&/log (in|out)/.test(e)&&!r?.startsWith(`no server`)?`Could not ${e}: this version of Switchboard does not support logging in yet.`:t===409?`Could not ${e}: Switchboard was started without a config file, so there is nowhere to save the change.`:r?`Could not ${e}: ${r}`:`Could not ${e} (the hub answered HTTP ${t}).`}async function D(e,t,n){let r;try{r=await fetch(`${me}/${t}`,{method:e,headers:{Accept:`application/json`},cache:`no-store`})}catch{throw new E(he(n,null,null),null)}let i=null;try{i=await r.json()}catch{i=null}let a=i&&typeof i==`object`&&`ok`in i&&i.ok===!1;if(!r.ok||a)throw new E(he(n,r.status,i),r.status);return i}function O(e){return typeof e==`object`&&!!e&&Array.isArray(e.servers)&&typeof e.endpoint==`string`}async function ge(){let e=await D(`GET`,`status`,`read the status`);if(!O(e))throw new E(`Could not read the status: the answer did not come from a Switchboard hub.`,null);return e}var k=encodeURIComponent,A={status:ge,setEnabled:(e,t)=>D(`POST`,`servers/${k(e)}/${t?`enable`:`disable`}`,`${t?`enable`:`disable`} ${e}`),refresh:e=>D(`POST`,`servers/${k(e)}/refresh`,`refresh ${e}`),refreshAll:()=>D(`POST`,`refresh`,`refresh all servers`),login:e=>D(`POST`,`servers/${k(e)}/login`,`log in to ${e}`),logout:e=>D(`POST`,`servers/${k(e)}/logout`,`log out of ${e}`),logs:e=>D(`GET`,`servers/${k(e)}/logs`,`read the logs of ${e}`)};function _e(e,t,n=2e3){let r=null,i=null,a=null,o=!1,s=async()=>{if(i=null,!(o||r)){try{e(await A.status()),t(`polling`)}catch(e){t(`offline`,e instanceof Error?e.message:String(e))}!o&&!r&&(i=setTimeout(s,n))}},c=()=>{if(a=null,o||typeof EventSource>`u`){s();return}let n=new EventSource(`${me}/events`);r=n,n.addEventListener(`snapshot`,n=>{try{let r=JSON.parse(n.data);if(!O(r))return;e(r),t(`live`)}catch{}}),n.onerror=()=>{n.close(),r===n&&(r=null),o||(i||s(),a=setTimeout(c,5e3))}};return c(),()=>{o=!0,r?.close(),i&&clearTimeout(i),a&&clearTimeout(a)}}var j=1e3,M=60*j,N=60*M,ve=24*N;function P(e){if(!e)return null;let t=Date.parse(e);return Number.isNaN(t)?null:t}function F(e){let t=Math.max(0,Math.round(e));if(t<M)return`${Math.max(1,Math.round(t/j))} s`;if(t<N)return`${Math.round(t/M)} min`;if(t<ve){let e=Math.floor(t/N),n=Math.round((t-e*N)/M);return n===0||n===60?`${n===60?e+1:e} h`:`${e} h ${n} min`}let n=Math.round(t/ve);return n===1?`1 day`:`${n} days`}function I(e,t){let n=t-e;return n<5*j?`just now`:`${F(n)} ago`}function ye(e,t){let n=e-t;return n<j?`now`:`in ${F(n)}`}function L(e,t,n=`${t}s`){return`${e} ${e===1?t:n}`}function R(e){let t=new Date(e),n=e=>String(e).padStart(2,`0`);return`${n(t.getHours())}:${n(t.getMinutes())}:${n(t.getSeconds())}`}function be(e,t=4){return e.length<=t?e.join(`, `):`${e.slice(0,t).join(`, `)} and ${e.length-t} more`}var xe={disabled:[`Disabled`,`Switched off in the config; clients do not see its tools`],idle:[`Idle`,`Not running; starts when a client needs it`],starting:[`Starting`,`Starting and listing its capabilities`],ready:[`Running`,`Connected and serving`],sleeping:[`Sleeping`,`Stopped after being idle; starts again when needed`],failed:[`Failed`,`Could not start or stopped working`],authRequired:[`Login needed`,`This server needs you to log in before it can be used`]},z={healthy:[`Healthy`,`●`],degraded:[`Degraded`,`▲`],down:[`Down`,`✕`],unknown:[`Not checked yet`,`○`],disabled:[`Off`,`–`]},Se={startup:`at start-up`,firstUse:`on first use`,ttl:`after the cache expired`,notification:`after the server announced a change`,poll:`by a periodic check`,manual:`by a manual refresh`,reload:`after a config reload`};function Ce(e){return xe[e]??[e,``]}function we(e){return e?Se[e]??`(${e})`:``}function Te(e){return!e.enabled||e.state===`disabled`?`disabled`:e.health?e.health:e.state===`failed`||e.state===`authRequired`?`down`:e.stale||e.consecutiveFailures>0||e.breaker?.state===`open`?`degraded`:e.listedAt?`healthy`:`unknown`}function Ee(e){let t=[`down`,`degraded`,`unknown`,`healthy`],n=new Set(e.map(Te).filter(e=>e!==`disabled`));return n.size===0?`disabled`:n.has(`down`)&&(n.has(`healthy`)||n.has(`degraded`)||n.has(`unknown`))?`degraded`:t.find(e=>n.has(e))??`unknown`}function De(e,t){let n=P(e.listedAt),r=[];if(n===null){let t;return t=e.enabled?e.state===`starting`?`Starting, not listed yet`:e.state===`failed`?`Never listed: the server did not start`:e.state===`authRequired`?`Not listed: log in first`:`Not listed yet: starts on first use`:`Not listed (disabled)`,{text:t,detail:``}}let i=[],a=we(e.refreshTrigger);if(i.push(`Listed ${I(n,t)}${a?` ${a}`:``}`),r.push(`Listed at ${R(n)}`),e.stale){let t=e.consecutiveFailures;i.push(t>1?`stale: the last ${t} refreshes failed`:`stale: the last refresh failed`)}let o=P(e.ttlExpiresAt);o!==null&&(o>t?i.push(`fresh for ${F(o-t)}`):i.push(`cache expired ${I(o,t)}, refreshed on next use`),r.push(`cache expires at ${R(o)}`));let s=P(e.nextPollAt);return s!==null&&e.enabled&&(i.push(`next check ${ye(s,t)}`),r.push(`next check at ${R(s)}`)),{text:i.join(` · `),detail:r.join(`, `)}}function Oe(e,t){let n=e.breaker;if(!n||n.state===`closed`)return null;if(n.state===`halfOpen`)return`Trying again after repeated failures`;let r=P(n.retryAt);return r===null||r<=t?`Paused after repeated failures; tries again when next needed`:`Paused after repeated failures; next try ${ye(r,t)}`}var ke=240;function Ae(e){let t=e.indexOf(`; stderr: `),n=e;if(t>=0){let r=e.slice(t+10).split(` | `).map(e=>e.trim()).filter(Boolean),i=r[r.length-1];n=`${e.slice(0,t)}${i?`. Its last output: “${i}”`:``}`}return n.length>ke?`${n.slice(0,239)}…`:n}function je(e){if(!e.lastError)return null;let t=e.consecutiveFailures,n=Ae(e.lastError);return t>1?`${n} (failed ${t} times in a row)`:n}function Me(e){if(!e)return null;switch(e.kind){case`invalid`:{let t=e.path??`the config file`;return`The config file has an error, so Switchboard keeps running the last good configuration. ${e.line?`${t}:${e.line}:${e.column??1} (line ${e.line}, column ${e.column??1})`:t}: ${e.message}`}case`read`:return`Switchboard cannot read its config file ${e.path??``}: ${e.message}`;case`env`:return`The environment variable ${e.name??``}=${JSON.stringify(e.value??``)} is not valid: ${e.message}`;default:return`Config problem: ${e.message}`}}function Ne(e){let t=[...e.added.map(e=>`+${e}`),...e.removed.map(e=>`−${e}`),...e.modified.map(e=>`~${e}`)],n=e.summary??(t.length>0?be(t,6):`lists changed`);return`Last change ${e.when}${e.how?` (found ${e.how})`:``}: ${n}`}function Pe(e){return[e.toolCount,e.promptCount,e.resourceCount,e.resourceTemplateCount].join(`/`)}var Fe=class{seen=new Map;changes=new Map;observe(e,t){let n=new Set;for(let r of e.servers){n.add(r.id);let e=this.seen.get(r.id),i=Pe(r);if(!Object.hasOwn(r,`lastChange`)&&r.enabled&&r.listedAt!==null&&e&&e.enabled&&e.listedAt!==null&&e.counts!==i){let n=e.tools===r.toolCount?`prompts or resources changed`:`tools ${e.tools} → ${r.toolCount}`;this.changes.set(r.id,{at:t,summary:n})}this.seen.set(r.id,{counts:i,tools:r.toolCount,listedAt:r.listedAt,enabled:r.enabled})}for(let e of[...this.seen.keys()])n.has(e)||(this.seen.delete(e),this.changes.delete(e))}changeFor(e){return this.changes.get(e)??null}};function Ie(e,t,n){let r=e.lastChange,i=P(r?.at);if(r&&i!==null)return{at:i,when:I(i,t),how:we(r.trigger),added:r.added??[],removed:r.removed??[],modified:r.modified??[],summary:null};let a=n?.changeFor(e.id);return a?{at:a.at,when:I(a.at,t),how:``,added:[],removed:[],modified:[],summary:a.summary}:null}function Le(e,t,n){let r=Te(e),[i,a]=z[r],[o,s]=Ce(e.state),c=e.listedAt!==null,{text:l,detail:u}=De(e,t),d=Ie(e,t,n),f=c?L(e.toolCount,`tool`):`—`,p=c?`${L(e.promptCount,`prompt`)}, ${L(e.resourceCount+e.resourceTemplateCount,`resource`)}`:``,m=e.serverName?[e.serverName,e.serverVersion].filter(Boolean).join(` `):null;return{id:e.id,serverInfo:m,transport:e.transport,enabled:e.enabled,state:e.state,stateLabel:o,stateHint:s,health:r,healthLabel:i,healthSymbol:a,listed:c,countsLabel:f,otherCountsLabel:p,fullError:e.enabled?e.lastError:null,staleness:l,stalenessDetail:u,stale:e.stale,lastChange:d,lastChangeLabel:d?Ne(d):null,recentlyChanged:d!==null&&t-d.at<6e5,breaker:Oe(e,t),error:e.enabled?je(e):null,unverified:e.unverified===!0,canLogin:e.enabled&&(e.state===`authRequired`||e.auth?.required===!0&&!e.auth.loggedIn),loginPending:e.auth?.loginPending===!0,canLogout:e.auth?.loggedIn===!0,authNote:e.enabled?e.auth?.message??null:null}}function Re(e,t,n){let r=e.totals,i=e.servers.map(e=>Le(e,t,n)),a=new Map;for(let e of i)a.set(e.health,(a.get(e.health)??0)+1);let o=[`healthy`,`degraded`,`down`,`unknown`,`disabled`].filter(e=>a.has(e)).map(e=>`${a.get(e)} ${z[e][0].toLowerCase()}`).join(` · `);return{endpoint:e.endpoint,version:e.version,totalsLabel:[L(r.servers,`server`),L(r.tools,`tool`),L(r.prompts,`prompt`),L(r.resources,`resource`)].join(` · `),healthSummary:o,overall:Ee(e.servers),configError:Me(e.configError),reloadNotes:e.lastReload?.errors??[],servers:i}}var ze={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},Be=e=>(...t)=>({_$litDirective$:e,values:t}),Ve=class{constructor(e){}get _$AU(){return this._$AM._$AU}_$AT(e,t,n){this._$Ct=e,this._$AM=t,this._$Ci=n}_$AS(e,t){return this.update(e,t)}update(e,t){return this.render(...t)}},{I:He}=de,Ue=e=>e,We=()=>document.createComment(``),B=(e,t,n)=>{let r=e._$AA.parentNode,i=t===void 0?e._$AB:t._$AA;if(n===void 0)n=new He(r.insertBefore(We(),i),r.insertBefore(We(),i),e,e.options);else{let t=n._$AB.nextSibling,a=n._$AM,o=a!==e;if(o){let t;n._$AQ?.(e),n._$AM=e,n._$AP!==void 0&&(t=e._$AU)!==a._$AU&&n._$AP(t)}if(t!==i||o){let e=n._$AA;for(;e!==t;){let t=Ue(e).nextSibling;Ue(r).insertBefore(e,i),e=t}}}return n},V=(e,t,n=e)=>(e._$AI(t,n),e),Ge={},Ke=(e,t=Ge)=>e._$AH=t,qe=e=>e._$AH,H=e=>{e._$AR(),e._$AA.remove()},Je=(e,t,n)=>{let r=new Map;for(let i=t;i<=n;i++)r.set(e[i],i);return r},Ye=Be(class extends Ve{constructor(e){if(super(e),e.type!==ze.CHILD)throw Error(`repeat() can only be used in text expressions`)}dt(e,t,n){let r;n===void 0?n=t:t!==void 0&&(r=t);let i=[],a=[],o=0;for(let t of e)i[o]=r?r(t,o):o,a[o]=n(t,o),o++;return{values:a,keys:i}}render(e,t,n){return this.dt(e,t,n).values}update(e,[t,n,r]){let i=qe(e),{values:a,keys:o}=this.dt(t,n,r);if(!Array.isArray(i))return this.ut=o,a;let s=this.ut??=[],c=[],l,u,d=0,f=i.length-1,p=0,m=a.length-1;for(;d<=f&&p<=m;)if(i[d]===null)d++;else if(i[f]===null)f--;else if(s[d]===o[p])c[p]=V(i[d],a[p]),d++,p++;else if(s[f]===o[m])c[m]=V(i[f],a[m]),f--,m--;else if(s[d]===o[m])c[m]=V(i[d],a[m]),B(e,c[m+1],i[d]),d++,m--;else if(s[f]===o[p])c[p]=V(i[f],a[p]),B(e,i[d],i[f]),f--,p++;else if(l===void 0&&(l=Je(o,p,m),u=Je(s,d,f)),l.has(s[d])){if(l.has(s[f])){let t=u.get(o[p]),n=t===void 0?null:i[t];if(n===null){let t=B(e,i[d]);V(t,a[p]),c[p]=t}else c[p]=V(n,a[p]),B(e,i[d],n),i[t]=null;p++}else H(i[f]),f--}else H(i[d]),d++;for(;p<=m;){let t=B(e,c[m+1]);V(t,a[p]),c[p++]=t}for(;d<=f;){let e=i[d++];e!==null&&H(e)}return this.ut=o,Ke(e,c),v}});function Xe(){return{calls:[],dropped:0,error:null,loaded:!1}}function Ze(e){return e<10?`${e.toFixed(1)} ms`:e<1e3?`${Math.round(e)} ms`:`${(e/1e3).toFixed(1)} s`}function Qe(e,t){return e.map(e=>{let n=P(e.time);return{seq:e.seq,when:n===null?e.time:I(n,t),at:e.time,client:e.client??`—`,server:e.server??`—`,name:e.name,duration:Ze(e.durationMs),outcome:e.outcome,error:e.error}})}function $e(e,t){let n=new Set(e.calls.map(e=>e.seq));return{calls:[...t.calls.filter(e=>!n.has(e.seq)),...e.calls].slice(0,100),dropped:t.dropped,error:null,loaded:!0}}function et(e,t){let n=Qe(e.calls,t);return _`<section class="activity" aria-labelledby="activity-h" data-testid="activity">
    <h2 id="activity-h">Activity</h2>
    ${e.error?_`<p class="muted" data-testid="activity-error">${e.error}</p>`:e.loaded?n.length===0?_`<p class="muted" data-testid="activity-empty">No calls yet. Tool calls, prompts and resource reads through Switchboard show up here.</p>`:_`<div class="table-wrap">
              <table class="servers activity-table">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Client</th>
                    <th scope="col">Server</th>
                    <th scope="col">Tool</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Outcome</th>
                  </tr>
                </thead>
                <tbody>
                  ${n.map(e=>_`<tr data-seq=${e.seq} class=${`outcome-${e.outcome}`}>
                      <td><time datetime=${e.at} title=${e.at}>${e.when}</time></td>
                      <td>${e.client}</td>
                      <td>${e.server}</td>
                      <td><code>${e.name}</code></td>
                      <td>${e.duration}</td>
                      <td data-testid="outcome">
                        <span class=${`pill outcome-${e.outcome}`}>${e.outcome}</span>
                        ${e.error?_`<div class="error-text">${e.error}</div>`:y}
                      </td>
                    </tr>`)}
                </tbody>
              </table>
            </div>`:_`<p class="muted">Loading…</p>`}
    ${e.dropped>0?_`<p class="muted">${e.dropped} calls were not recorded because the recorder was behind.</p>`:y}
  </section>`}function tt(e,t){if(e===401||e===403)return"Sign in to see what clients called: open the dashboard with `switchboard dashboard` (or from the Switchboard app).";if(e===null)return`Switchboard is not answering.`;let n=t&&typeof t==`object`&&`error`in t?String(t.error):null;return n?`Could not read the activity: ${n}`:`Could not read the activity (HTTP ${e}).`}function nt(e,t,n=3e3){let r=null,i=!1,a=async()=>{r=null;let o=e().calls[0]?.seq,s=o===void 0?`limit=100`:`limit=100&after=${o}`,c=null,l=null;try{let n=await fetch(`api/v1/activity?${s}`,{headers:{Accept:`application/json`},cache:`no-store`});c=n.status,l=await n.json().catch(()=>null),n.ok&&l&&typeof l==`object`&&Array.isArray(l.calls)?t($e(e(),l)):t({...e(),error:tt(c,l),loaded:!0})}catch{t({...e(),error:tt(null,null),loaded:!0})}i||(r=setTimeout(()=>void a(),n))};return a(),()=>{i=!0,r&&clearTimeout(r)}}var rt={live:`Live`,polling:`Updating every few seconds`,offline:`Not connected`};function it(e,t){let n=e.view,r=rt[e.connection];return _`<header class="top">
    <div class="brand">
      <span class="dot health-${n?.overall??`unknown`}" aria-hidden="true"></span>
      <h1>Switchboard</h1>
      ${n?_`<span class="muted version">v${n.version}</span>`:y}
    </div>
    ${n?_`<div class="endpoint">
          <span class="label" id="endpoint-label">Endpoint</span>
          <code aria-labelledby="endpoint-label" data-testid="endpoint">${n.endpoint}</code>
          <button type="button" class="small" aria-label="Copy the endpoint URL" @click=${()=>t.copy(n.endpoint,`Endpoint URL`)}>
            Copy
          </button>
        </div>
        <div class="totals" data-testid="totals">
          <span>${n.totalsLabel}</span>
          ${n.healthSummary?_`<span class="muted">${n.healthSummary}</span>`:y}
        </div>`:y}
    <div class="header-actions">
      <span class="conn conn-${e.connection}" role="status" title=${e.connectionDetail??r}>${r}</span>
      <button type="button" class="primary" ?disabled=${!n||e.busy.has(`refreshAll`)} @click=${t.refreshAll}>
        ${e.busy.has(`refreshAll`)?`Refreshing…`:`Refresh all`}
      </button>
    </div>
  </header>`}function at(e,t){let n=e.view;return _`
    ${e.startupError?_`<div class="banner error" role="alert" data-testid="startup-error">
          <strong>Switchboard could not start its hub.</strong> ${e.startupError}
        </div>`:y}
    ${e.connection===`offline`&&!e.startupError?_`<div class="banner error" role="alert" data-testid="offline">
          ${e.connectionDetail??`Switchboard is not answering.`} The page reconnects by itself.
        </div>`:y}
    ${n?.configError?_`<div class="banner error" role="alert" data-testid="config-error">${n.configError}</div>`:y}
    ${n&&n.reloadNotes.length>0?_`<div class="banner warn" role="status">
          The last config reload said: ${n.reloadNotes.join(`; `)}
        </div>`:y}
    <div class="notice-slot" aria-live="polite">
      ${e.notice?_`<div class="banner notice ${e.notice.kind===`error`?`error`:`ok`}" data-testid="notice">
            <span
              >${e.notice.text}
              ${e.notice.link?_`<a href=${e.notice.link.href} target="_blank" rel="noopener noreferrer">${e.notice.link.label}</a>`:y}</span
            >
            <button type="button" class="small" aria-label="Dismiss this message" @click=${t.dismissNotice}>×</button>
          </div>`:y}
    </div>
  `}function ot(e,t,n){let r=t.busy.has(`toggle:${e.id}`);return _`<button
    type="button"
    class="switch"
    role="switch"
    aria-checked=${e.enabled?`true`:`false`}
    aria-label=${`${e.id} enabled`}
    title=${e.enabled?`Disable ${e.id}`:`Enable ${e.id}`}
    ?disabled=${r}
    data-action="toggle"
    @click=${()=>n.toggle(e.id,!e.enabled)}
  >
    <span class="knob" aria-hidden="true"></span>
  </button>`}function st(e){let t=e.lastChange;if(!t)return y;let n=t.summary?_`${t.summary}`:_`${t.added.map(e=>_`<span class="added">+${e}</span> `)}${t.removed.map(e=>_`<span class="removed">−${e}</span> `)}${t.modified.map(e=>_`<span class="modified">~${e}</span> `)}${t.added.length+t.removed.length+t.modified.length===0?`lists changed`:y}`;return _`<div class="change" data-testid="last-change" title=${e.lastChangeLabel??``}>
    ${e.recentlyChanged?_`<span class="badge recent-badge">Changed</span>`:y}
    Last change ${t.when}${t.how?` (found ${t.how})`:``}: ${n}
  </div>`}function ct(e,t,n){let r=t.busy.has(`refresh:${e.id}`),i=e.error||e.breaker||e.unverified||e.authNote;return _`<tbody
    class="server health-${e.health} ${e.recentlyChanged?`recent`:``} ${e.enabled?``:`off`}"
    data-server=${e.id}
    data-state=${e.state}
  >
    <tr>
      <td class="c-toggle">${ot(e,t,n)}</td>
      <th scope="row" class="c-name">
        <span class="name">${e.id}</span>
        ${e.serverInfo?_`<span class="muted info">${e.serverInfo}</span>`:y}
      </th>
      <td class="c-transport"><span class="pill">${e.transport}</span></td>
      <td class="c-state" data-testid="state" title=${e.stateHint}>${e.stateLabel}</td>
      <td class="c-health" data-testid="health">
        <span class="sym health-${e.health}" aria-hidden="true">${e.healthSymbol}</span> ${e.healthLabel}
      </td>
      <td class="c-counts">
        <span data-testid="counts">${e.countsLabel}</span>
        ${e.otherCountsLabel?_`<span class="muted other-counts">${e.otherCountsLabel}</span>`:y}
      </td>
      <td class="c-fresh">
        <div data-testid="staleness" class=${e.stale?`stale`:``} title=${e.stalenessDetail}>${e.staleness}</div>
        ${st(e)}
      </td>
      <td class="c-actions">
        <button
          type="button"
          class="small"
          ?disabled=${!e.enabled||r}
          aria-label=${`Refresh ${e.id}`}
          data-action="refresh"
          @click=${()=>n.refresh(e.id)}
        >
          ${r?`Refreshing…`:`Refresh`}
        </button>
        ${e.canLogin?_`<button
              type="button"
              class="small primary"
              aria-label=${`Log in to ${e.id}`}
              ?disabled=${e.loginPending||t.busy.has(`login:${e.id}`)}
              @click=${()=>n.login(e.id)}
            >
              ${e.loginPending?`Waiting for login…`:`Log in`}
            </button>`:y}
        ${e.canLogout?_`<button type="button" class="small" aria-label=${`Log out of ${e.id}`} @click=${()=>n.logout(e.id)}>
              Log out
            </button>`:y}
        <button type="button" class="small" aria-label=${`Show logs of ${e.id}`} data-action="logs" @click=${()=>n.openLogs(e.id)}>
          Logs
        </button>
      </td>
    </tr>
    ${i?_`<tr class="detail">
          <td></td>
          <td colspan="7">
            ${e.authNote?_`<div class="auth-note" data-testid="auth">${e.authNote}</div>`:y}
            ${e.error?_`<div class="error-text" data-testid="error" role="note" title=${e.fullError??``}>${e.error}</div>`:y}
            ${e.breaker?_`<div class="breaker" data-testid="breaker">${e.breaker}</div>`:y}
            ${e.unverified?_`<div class="muted">Not verified yet: the lists shown come from an earlier run.</div>`:y}
          </td>
        </tr>`:y}
  </tbody>`}function lt(e,t){let n=e.view;return n?n.servers.length===0?_`<p class="empty" data-testid="empty">
      No servers configured yet. Add them under <code>mcpServers</code> in the config file; Switchboard picks up
      changes by itself.
    </p>`:_`<div class="table-wrap">
    <table class="servers" aria-describedby="servers-h">
      <thead>
        <tr>
          <th scope="col"><span class="sr-only">Enabled</span></th>
          <th scope="col">Server</th>
          <th scope="col">Transport</th>
          <th scope="col">State</th>
          <th scope="col">Health</th>
          <th scope="col">Capabilities</th>
          <th scope="col">Freshness</th>
          <th scope="col"><span class="sr-only">Actions</span></th>
        </tr>
      </thead>
      ${Ye(n.servers,e=>e.id,n=>ct(n,e,t))}
    </table>
  </div>`:e.startupError?_``:_`<p class="muted" data-testid="loading">${e.connection===`offline`?`Waiting for Switchboard…`:`Loading…`}</p>`}function ut(e,t){let n=e.snippets.find(t=>t.client===e.client)??e.snippets[0];return n?_`<section class="connect" aria-labelledby="connect-h">
    <h2 id="connect-h">Connect a client</h2>
    <div class="tabs" role="tablist" aria-label="Client">
      ${e.snippets.map(r=>_`<button
          type="button"
          role="tab"
          id=${`tab-${r.client}`}
          aria-selected=${r.client===n.client?`true`:`false`}
          aria-controls="snippet-panel"
          tabindex=${r.client===n.client?`0`:`-1`}
          @click=${()=>t.pickClient(r.client)}
          @keydown=${n=>dt(n,e,t)}
        >
          ${r.label}
        </button>`)}
    </div>
    <div id="snippet-panel" role="tabpanel" aria-labelledby=${`tab-${n.client}`} data-testid="snippet">
      <p class="muted">${n.where}.</p>
      ${n.command?_`<div class="snippet">
            <pre><code>${n.command}</code></pre>
            <button type="button" class="small" aria-label=${`Copy the ${n.label} command`} @click=${()=>t.copy(n.command??``,`${n.label} command`)}>Copy</button>
          </div>`:y}
      <div class="snippet">
        <pre><code data-testid="snippet-text">${n.text}</code></pre>
        <button type="button" class="small" aria-label=${`Copy the ${n.label} config`} @click=${()=>t.copy(n.text,`${n.label} config`)}>Copy</button>
      </div>
    </div>
  </section>`:_``}function dt(e,t,n){let r=t.snippets.map(e=>e.client),i=r.indexOf(t.client),a=i;if(e.key===`ArrowRight`)a=(i+1)%r.length;else if(e.key===`ArrowLeft`)a=(i-1+r.length)%r.length;else if(e.key===`Home`)a=0;else if(e.key===`End`)a=r.length-1;else return;e.preventDefault();let o=r[a];o&&(n.pickClient(o),queueMicrotask(()=>document.getElementById(`tab-${o}`)?.focus()))}function ft(e,t){let n=e.logs;return _`<dialog id="logs" aria-labelledby="logs-h" @close=${t.closeLogs}>
    ${n?_`<div class="dialog-head">
            <h2 id="logs-h">Logs: ${n.id}</h2>
            <button type="button" class="small" @click=${t.reloadLogs}>Reload</button>
            <button type="button" class="small" aria-label="Close the logs" @click=${t.closeLogs}>Close</button>
          </div>
          ${n.error?_`<div class="banner error" role="alert">${n.error}</div>`:y}
          ${n.data?_`<h3>Events</h3>
                ${n.data.events.length===0?_`<p class="muted">No events yet.</p>`:_`<ul class="events" data-testid="log-events">
                      ${n.data.events.map(e=>_`<li class="level-${e.level}"><time>${e.at}</time> <b>${e.level}</b> ${e.message}</li>`)}
                    </ul>`}
                <h3>Standard error</h3>
                ${n.data.stderr.length===0?_`<p class="muted">Nothing on stderr.</p>`:_`<pre class="stderr" data-testid="log-stderr">${n.data.stderr.join(`
`)}</pre>`}`:n.error?y:_`<p class="muted">Loading…</p>`}`:y}
  </dialog>`}function pt(e,t){return _`${it(e,t)}
    <main>
      ${at(e,t)}
      <section aria-labelledby="servers-h">
        <h2 id="servers-h" class="sr-only">Servers</h2>
        ${lt(e,t)}
      </section>
      ${e.view?et(e.activity,Date.now()):y}
      ${e.view?ut(e,t):y}
    </main>
    ${ft(e,t)}`}function U(e){return`${JSON.stringify(e,null,2)}\n`}function mt(e){return JSON.stringify(e)}function ht(e){return[{client:`claudeCode`,label:`Claude Code`,where:`Run the command, or add this to .mcp.json in your project (or ~/.claude.json)`,language:`json`,text:U({mcpServers:{switchboard:{type:`http`,url:e}}}),command:`claude mcp add --transport http --scope user switchboard ${e}`},{client:`cursor`,label:`Cursor`,where:`Add this to ~/.cursor/mcp.json`,language:`json`,text:U({mcpServers:{switchboard:{url:e}}}),command:null},{client:`vscode`,label:`VS Code`,where:`Add this to .vscode/mcp.json in your workspace (or your user mcp.json)`,language:`json`,text:U({servers:{switchboard:{type:`http`,url:e}}}),command:null},{client:`codex`,label:`Codex`,where:`Add this to ~/.codex/config.toml`,language:`toml`,text:`[mcp_servers.switchboard]\nurl = ${mt(e)}\n`,command:null},{client:`claudeDesktop`,label:`Claude Desktop`,where:`Add this to claude_desktop_config.json (Settings → Developer → Edit Config). Claude Desktop speaks stdio, so it runs the switchboard bridge, which forwards to this hub`,language:`json`,text:U({mcpServers:{switchboard:{command:`switchboard`,args:[`stdio`]}}}),command:null}]}var W=document.getElementById(`app`);W&&(W.textContent=``);var G=new Fe,K=null,q=null,J=new Set,Y={view:null,connection:`polling`,connectionDetail:null,startupError:new URLSearchParams(location.search).get(`hubError`),notice:null,busy:J,snippets:[],client:`claudeCode`,logs:null,activity:Xe()};function X(){W&&(Y.view=K?Re(K,Date.now(),G):null,Y.snippets=K?ht(K.endpoint):[],pe(pt(Y,vt),W),document.title=K?`Switchboard · ${Y.view?.totalsLabel??``}`:`Switchboard`)}function Z(e,t,n){Y.notice=n?{kind:e,text:t,link:n}:{kind:e,text:t},q&&clearTimeout(q),q=setTimeout(()=>{Y.notice=null,X()},e===`error`?15e3:5e3),X()}function Q(e){return e instanceof E||e instanceof Error?e.message:String(e)}async function $(e,t,n){if(!J.has(e)){J.add(e),X();try{await t(),n&&Z(`ok`,n)}catch(e){Z(`error`,Q(e))}finally{J.delete(e),X()}}}async function gt(e){if(navigator.clipboard&&window.isSecureContext)try{await navigator.clipboard.writeText(e);return}catch{}let t=document.createElement(`textarea`);t.value=e,t.setAttribute(`readonly`,``),t.style.position=`fixed`,t.style.opacity=`0`,document.body.appendChild(t),t.select();let n=document.execCommand(`copy`);if(t.remove(),!n)throw Error(`the browser did not allow copying; select the text and copy it by hand`)}async function _t(e){try{let t=await A.logs(e);Y.logs?.id===e&&(Y.logs={id:e,data:t,error:null})}catch(t){Y.logs?.id===e&&(Y.logs={id:e,data:null,error:Q(t)})}X()}var vt={copy(e,t){gt(e).then(()=>Z(`ok`,`${t} copied.`),e=>Z(`error`,`Could not copy: ${Q(e)}`))},refreshAll(){$(`refreshAll`,async()=>{let e=await A.refreshAll(),t=e.servers.filter(e=>!e.ok);if(t.length>0)throw Error(`Refreshed ${e.servers.length-t.length} of ${e.servers.length} servers; `+t.map(e=>`${e.id}: ${e.error??`failed`}`).join(`; `))},`All servers refreshed.`)},toggle(e,t){$(`toggle:${e}`,()=>A.setEnabled(e,t),`${e} ${t?`enabled`:`disabled`}.`)},refresh(e){$(`refresh:${e}`,()=>A.refresh(e),`${e} refreshed.`)},login(e){$(`login:${e}`,async()=>{let t=await A.login(e);window.open(t.authorizationUrl,`_blank`,`noopener,noreferrer`),Z(`ok`,`Log-in to ${e} started: finish it in your browser.`,{href:t.authorizationUrl,label:`Open the login page again`})},null)},logout(e){$(`logout:${e}`,()=>A.logout(e),`Logged out of ${e}.`)},openLogs(e){Y.logs={id:e,data:null,error:null},X();let t=document.getElementById(`logs`);t instanceof HTMLDialogElement&&!t.open&&t.showModal(),_t(e)},closeLogs(){let e=document.getElementById(`logs`);if(e instanceof HTMLDialogElement&&e.open&&e.close(),Y.logs){let e=Y.logs.id;Y.logs=null,X(),document.querySelector(`[data-server="${CSS.escape(e)}"] [data-action="logs"]`)?.focus()}},reloadLogs(){Y.logs&&_t(Y.logs.id)},dismissNotice(){q&&clearTimeout(q),Y.notice=null,X()},pickClient(e){Y.client=e,X()}};function yt(e){G.observe(e,Date.now()),K=e,X()}function bt(e,t){(Y.connection!==e||Y.connectionDetail!==(t??null))&&(Y.connection=e,Y.connectionDetail=t??null,X())}Y.startupError?Y.connection=`offline`:(_e(yt,bt),nt(()=>Y.activity,e=>{Y.activity=e,X()})),setInterval(X,5e3),X();